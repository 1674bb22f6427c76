//! Arista EOS `show lldp neighbors detail | json` (the eAPI shape):
//!
//! ```text
//! {"lldpNeighbors": {"Ethernet1/1": {"lldpNeighborInfo": [
//!     {"chassisIdType": "macAddress", "chassisId": "2c60.0cad.30de", "systemName": "78m3",
//!      "neighborInterfaceInfo": {"interfaceIdType": "macAddress", "interfaceId": "000f.532e.ced1",
//!                                "interfaceDescription": "eth3", ...},
//!      "managementAddresses": [{"address": "192.168.8.21", "addressType": "ipv4", ...}], ...}]}}}
//! ```
//!
//! and the summary, `show lldp neighbors | json`, a list of rows:
//!
//! ```text
//! {"lldpNeighbors": [{"port": "Ethernet1", "neighborDevice": "precise64",
//!                     "neighborPort": "0800.274f.332d", "ttl": 120}], "tablesInserts": 2, ...}
//! ```
//!
//! A port with no neighbour has an empty `lldpNeighborInfo`. `interfaceId` may carry EOS's
//! quotes (`"\"Ethernet2\""`); newer releases add `interfaceId_v2` without them, which wins.
//! JSON carries no line numbers: a warning about an entry names the line where its port first
//! appears.
use super::neighbors::{LldpFormat, LldpNeighbors, device_id, id, management_ip};
use crate::lines::{clip, no_facts};
use crate::switch::{LldpNeighbor, canonical_interface};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde_json::Value;

/// Parses the eAPI JSON of `show lldp neighbors detail` or `show lldp neighbors`.
///
/// # Errors
/// Empty input, JSON that does not parse, or JSON without `lldpNeighbors`.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    if text.trim().is_empty() {
        return Err(no_facts(text, "empty `show lldp neighbors detail | json` output", "no JSON"));
    }
    let start = text.find('{').unwrap_or(0);
    let root: Value = serde_json::from_str(&text[start..])
        .map_err(|e| ParseError::at(e.line(), format!("not EOS LLDP JSON: {}", clip(&e.to_string(), 120))))?;
    let mut found = LldpNeighbors::new(LldpFormat::EosJson);
    let mut warnings = Vec::new();
    let line_of = |port: &str| text.find(&format!("\"{port}\"")).map_or(1, |at| text[..at].matches('\n').count() + 1);
    let ports = match root.get("lldpNeighbors") {
        Some(Value::Object(ports)) => ports,
        Some(Value::Array(rows)) => {
            for (i, row) in rows.iter().enumerate() {
                match summary_neighbor(row) {
                    Some(nb) => found.neighbors.push(nb),
                    None => warnings.push(ParseWarning::at(
                        row.get("port").and_then(Value::as_str).map_or(1, line_of),
                        format!("neighbour {} has no `port` or no `neighborDevice`, skipped", i + 1),
                    )),
                }
            }
            return Ok(Parsed { value: found, warnings });
        }
        _ => {
            return Err(ParseError::at(
                0,
                "no `lldpNeighbors` object or list: not `show lldp neighbors [detail] | json` output",
            ));
        }
    };
    for (port, entry) in ports {
        let Some(infos) = entry.get("lldpNeighborInfo").and_then(Value::as_array) else {
            warnings.push(ParseWarning::at(
                line_of(port),
                format!("port `{}` has no `lldpNeighborInfo` list", clip(port, 40)),
            ));
            continue;
        };
        for info in infos {
            match neighbor(port, info) {
                Some(nb) => found.neighbors.push(nb),
                None => warnings.push(ParseWarning::at(
                    line_of(port),
                    format!("a neighbour of `{}` has neither a chassis ID nor a system name, skipped", clip(port, 40)),
                )),
            }
        }
    }
    Ok(Parsed { value: found, warnings })
}

/// A row of the summary (`show lldp neighbors | json`): the device ID is the system name, or the
/// chassis ID when it is a MAC, as in the text table.
fn summary_neighbor(row: &Value) -> Option<LldpNeighbor> {
    let port = row.get("port").and_then(Value::as_str).filter(|p| !p.trim().is_empty())?;
    let device = row.get("neighborDevice").and_then(Value::as_str).and_then(id)?;
    let (chassis_id, system_name) = device_id(&device);
    Some(LldpNeighbor {
        local_port: canonical_interface(port),
        chassis_id,
        system_name,
        port_id: row.get("neighborPort").and_then(Value::as_str).and_then(id),
        ..LldpNeighbor::default()
    })
}

fn neighbor(port: &str, info: &Value) -> Option<LldpNeighbor> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).and_then(id);
    let iface = info.get("neighborInterfaceInfo");
    let chassis_id = text(info.get("chassisId"));
    let system_name = text(info.get("systemName"));
    if chassis_id.is_none() && system_name.is_none() {
        return None;
    }
    let port_id =
        text(iface.and_then(|i| i.get("interfaceId_v2"))).or_else(|| text(iface.and_then(|i| i.get("interfaceId"))));
    let addresses: Vec<String> = info
        .get("managementAddresses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("address").and_then(Value::as_str).map(String::from))
        .collect();
    Some(LldpNeighbor {
        local_port: canonical_interface(port),
        chassis_id,
        system_name,
        port_id,
        port_description: text(iface.and_then(|i| i.get("interfaceDescription"))),
        management_ip: management_ip(&addresses),
    })
}
