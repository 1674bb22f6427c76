//! `show interfaces status` (the `intfutil -c status` script): per interface its lanes, speed,
//! MTU, FEC, alias, VLAN mode, operational and administrative state, transceiver type.
//!
//! ```text
//!       Interface            Lanes    Speed    MTU    FEC      Alias             Vlan    Oper    Admin               Type    Asym PFC
//! ---------------  ---------------  -------  -----  -----  ---------  ---------------  ------  -------  -----------------  ----------
//!       Ethernet0                0      25G   9100     rs  Ethernet0           routed    down       up    QSFP28 or later         off
//! PortChannel0001              N/A      40G   9100    N/A        N/A           routed    down       up                N/A         N/A
//! ```
//!
//! One `tabulate` table (see `table`): cells may hold spaces (`QSFP28 or later`), so the rule
//! gives the columns. Columns are found by name, so older releases without `Type` or `Asym PFC`
//! (and newer ones with more columns) read the same. Speeds are printed with a unit (`25G`,
//! `100M`, `1000M`, `400G`) and converted to Mb/s. `N/A` cells are absent values. Variants: port
//! channels after the ports, a `Running command: ...` line from `--verbose`, a prompt line, a
//! capture cut mid-row (skipped with a warning).
use super::table::{is_sonic_prompt, read_tables};
use crate::lines::no_facts;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Everything `show interfaces status` printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InterfacesStatus {
    /// Interfaces in output order.
    pub interfaces: Vec<InterfaceStatus>,
}

/// One interface. `None`: the cell was `N/A`, empty, or its column absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InterfaceStatus {
    /// Interface name as printed (`Ethernet0`, `PortChannel0001`).
    pub name: String,
    /// Serdes lanes, e.g. `13,14,15,16`.
    pub lanes: Option<String>,
    /// Speed as printed (`25G`).
    pub speed: Option<String>,
    /// Speed in Mb/s.
    pub speed_mbps: Option<u64>,
    /// MTU in bytes.
    pub mtu: Option<u32>,
    /// FEC mode: `rs`, `fc`, `none`, `auto`.
    pub fec: Option<String>,
    /// Front-panel alias.
    pub alias: Option<String>,
    /// `routed`, `trunk`, or the port channel the port belongs to.
    pub vlan: Option<String>,
    /// Operational state: `up`, `down`.
    pub oper: Option<String>,
    /// Administrative state: `up`, `down`.
    pub admin: Option<String>,
    /// Transceiver type (`QSFP28 or later`, `RJ45`).
    pub port_type: Option<String>,
    /// Asymmetric PFC: `on`, `off`.
    pub asym_pfc: Option<String>,
}

/// Parses `show interfaces status` output.
///
/// # Errors
/// Empty input, or no table whose first column is `Interface`.
pub fn parse(text: &str) -> ParseResult<InterfacesStatus> {
    let mut value = InterfacesStatus::default();
    let mut warnings = Vec::new();
    let tables = read_tables(
        text,
        &mut value,
        &mut warnings,
        |columns| {
            columns.names[0].eq_ignore_ascii_case("Interface")
                && ["Speed", "MTU", "Oper", "Admin"].iter().any(|k| columns.find(k).is_some())
        },
        |value: &mut InterfacesStatus, cells, names, n, warnings| {
            // A pager's prompt (`show interfaces status | more` saved from a terminal) is no
            // port; the rows around it may be cut or shifted.
            if cells[0].starts_with("--More--") {
                warnings
                    .push(ParseWarning::at(n, "a pager's `--More--`: the output was paged, rows near it may be cut"));
                return;
            }
            value.interfaces.push(interface(cells, names, n, warnings))
        },
        |_, text| text.starts_with("Running command:") || is_sonic_prompt(text),
    );
    if tables == 0 {
        return Err(no_facts(
            text,
            "empty show interfaces status output",
            "no `Interface ... Speed ... Oper ... Admin` table: not show interfaces status output",
        ));
    }
    Ok(Parsed { value, warnings })
}

fn interface(cells: &[String], names: &[String], n: usize, warnings: &mut Vec<ParseWarning>) -> InterfaceStatus {
    let mut i = InterfaceStatus { name: cells[0].clone(), ..InterfaceStatus::default() };
    for (cell, name) in cells.iter().zip(names).skip(1) {
        let Some(v) = Some(cell.as_str()).filter(|c| !c.is_empty() && *c != "N/A") else {
            continue;
        };
        let text = Some(v.to_string());
        match name.to_ascii_lowercase().as_str() {
            "lanes" => i.lanes = text,
            "speed" => {
                i.speed_mbps = speed_mbps(v);
                if i.speed_mbps.is_none() {
                    warnings.push(ParseWarning::at(n, format!("unreadable speed `{v}`")));
                }
                i.speed = text;
            }
            "mtu" => {
                i.mtu = v.parse().ok();
                if i.mtu.is_none() {
                    warnings.push(ParseWarning::at(n, format!("unreadable MTU `{v}`")));
                }
            }
            "fec" => i.fec = text,
            "alias" => i.alias = text,
            "vlan" => i.vlan = text,
            "oper" => i.oper = text,
            "admin" => i.admin = text,
            "type" => i.port_type = text,
            "asym pfc" => i.asym_pfc = text,
            // Newer releases add columns (`Description` ...): nothing the audit reads.
            _ => {}
        }
    }
    i
}

/// `25G` → 25 000, `100M` → 100, `2.5G` → 2 500, `100000` (no unit: Mb/s, as in the config DB).
pub(crate) fn speed_mbps(v: &str) -> Option<u64> {
    let v = v.trim();
    let (number, factor) = match v.char_indices().last()? {
        (i, 'G' | 'g') => (&v[..i], 1000.0),
        (i, 'M' | 'm') => (&v[..i], 1.0),
        (i, 'T' | 't') => (&v[..i], 1_000_000.0),
        _ => (v, 1.0),
    };
    let n: f64 = number.parse().ok()?;
    let mbps = n * factor;
    (0.0..1e15).contains(&mbps).then(|| mbps.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/sonic_interfaces/show-interfaces-status-sonic-utilities-intfutil-test.txt");

    #[test]
    fn speeds_convert_to_mbps() {
        assert_eq!(speed_mbps("25G"), Some(25_000));
        assert_eq!(speed_mbps("1000M"), Some(1000));
        assert_eq!(speed_mbps("2.5G"), Some(2500));
        assert_eq!(speed_mbps("400000"), Some(400_000));
        assert_eq!(speed_mbps("1.6T"), Some(1_600_000));
        assert_eq!(speed_mbps("fast"), None);
        assert_eq!(speed_mbps("-1G"), None);
        assert_eq!(speed_mbps(""), None);
    }

    #[test]
    fn older_columns_bad_values_and_a_cut_row() {
        let text = "  Interface    Lanes    Speed    MTU    Alias    Oper    Admin\n\
                    -----------  -------  -------  -----  -------  ------  -------\n\
                    \x20 Ethernet0  0,1,2,3     100G   9100   etp1        up       up\n\
                    \x20 Ethernet4  4,5,6,7     fast    big   etp2      down       up\n\
                    \x20 Ethernet8  8,9,10,";
        let parsed = parse(text).expect("parses");
        let i = &parsed.value.interfaces;
        assert_eq!(i.len(), 2);
        assert_eq!((i[0].speed_mbps, i[0].mtu, i[0].fec.clone()), (Some(100_000), Some(9100), None));
        assert_eq!((i[1].speed_mbps, i[1].mtu, i[1].oper.as_deref()), (None, None, Some("down")));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [4, 4, 5]);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("  Port  Rx\n------  --\nEth0  1\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
