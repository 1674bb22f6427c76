//! Configuration values, flattened: what `--state` and `fabcheck diff` compare from one run to
//! the next ("which values drifted"), per device and port.
//!
//! The values come from the neutral model (switches) and the hosts' typed facts, never from
//! vendor text, so a SONiC switch re-rendering its configuration in another order is no drift,
//! and a drift reads the same on every platform: `leaf1 Ethernet8 lossless_priorities: [3] → []`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// One device's values: by port (`""` for the device itself), then by setting name.
pub type DeviceConfig = BTreeMap<String, BTreeMap<String, String>>;

/// Every device's values, by device name, as `config.json` holds them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FabricConfig {
    /// Devices whose configuration was read; a device that was unreachable is absent (its
    /// values are unknown, not removed).
    pub devices: BTreeMap<String, StoredConfig>,
}

/// One device's values kept as compact JSON text until they are compared or written. A run
/// keeps every device's until its reports are written: as maps they took 40 KB a host (a
/// string and a tree node per setting, 64 DSCP settings per NIC), a third of that as text.
/// Serialized as the map it holds (the `--state` file); `config.json` writes the text as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredConfig(Box<str>);

/// No values: `{}`, so that the text is JSON whatever made it.
impl Default for StoredConfig {
    fn default() -> StoredConfig {
        StoredConfig("{}".into())
    }
}

impl StoredConfig {
    /// Keeps `values`.
    pub fn new(values: &DeviceConfig) -> StoredConfig {
        // A map of strings always serializes; `{}` keeps the text JSON should it not.
        StoredConfig(serde_json::to_string(values).unwrap_or_else(|_| "{}".into()).into_boxed_str())
    }

    /// Keeps the values of `ports`, whose settings are each sorted by name, one value per name:
    /// the same text as [`StoredConfig::new`] of the maps they would make.
    pub fn of_sorted(ports: &BTreeMap<String, Vec<(String, String)>>) -> StoredConfig {
        /// A port's sorted settings, serialized as the map they would make.
        struct Settings<'a>(&'a [(String, String)]);
        impl Serialize for Settings<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
            }
        }
        struct Ports<'a>(&'a BTreeMap<String, Vec<(String, String)>>);
        impl Serialize for Ports<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.iter().map(|(port, settings)| (port, Settings(settings))))
            }
        }
        StoredConfig(serde_json::to_string(&Ports(ports)).unwrap_or_else(|_| "{}".into()).into_boxed_str())
    }

    /// The values as compact JSON text (a `DeviceConfig`), to write as they are.
    pub fn as_json(&self) -> &str {
        &self.0
    }

    /// The values kept.
    pub fn values(&self) -> DeviceConfig {
        serde_json::from_str(&self.0).unwrap_or_default()
    }
}

impl From<DeviceConfig> for StoredConfig {
    fn from(values: DeviceConfig) -> StoredConfig {
        StoredConfig::new(&values)
    }
}

impl Serialize for StoredConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.values().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for StoredConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<StoredConfig, D::Error> {
        DeviceConfig::deserialize(deserializer).map(StoredConfig::from)
    }
}

mod leaves;
pub use leaves::flatten_value;

/// Adds the leaves of `value` (as JSON) under `path` to `into`: objects by dotted key
/// (`dscp_to_tc.26`), arrays of scalars as one value (`[3, 4]`, so a priority list is one
/// setting), arrays of objects by index, absent values (`null`) not at all. The leaves are added
/// in the order they are met, to be sorted once: quicker for hundreds of settings than inserting
/// into a map. One buffer holds the keys of the whole walk. [`flatten_value`] applies the same
/// rules to a value as it serializes.
fn flatten_at(value: &serde_json::Value, path: &mut String, into: &mut Vec<(String, String)>) {
    use serde_json::Value;
    let mut below = |path: &mut String, name: &str, v: &Value| {
        let len = path.len();
        if len > 0 {
            path.push('.');
        }
        path.push_str(name);
        flatten_at(v, path, into);
        path.truncate(len);
    };
    match value {
        Value::Null => {}
        Value::Object(fields) => {
            for (name, v) in fields {
                below(path, name, v);
            }
        }
        Value::Array(items) if items.iter().all(is_scalar) => {
            let shown: Vec<String> = items.iter().map(scalar_text).collect();
            into.push((path.clone(), list_text(shown.iter().map(String::as_str))));
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                below(path, &i.to_string(), v);
            }
        }
        scalar => into.push((path.clone(), scalar_text(scalar))),
    }
}

/// A list of scalars as one setting's value: `[3, 4]`.
fn list_text<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::from("[");
    for (at, item) in items.enumerate() {
        if at > 0 {
            text.push_str(", ");
        }
        text.push_str(item);
    }
    text.push(']');
    text
}

fn is_scalar(v: &serde_json::Value) -> bool {
    !matches!(v, serde_json::Value::Object(_) | serde_json::Value::Array(_))
}

fn scalar_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flatten(value: &serde_json::Value, prefix: &str, into: &mut Vec<(String, String)>) {
        flatten_at(value, &mut prefix.to_string(), into);
    }

    /// The text kept from sorted settings is the text of the maps they make, escapes included.
    #[test]
    fn sorted_settings_keep_the_text_their_maps_would() {
        let ports: BTreeMap<String, Vec<(String, String)>> = [
            (String::new(), vec![("modules".into(), "[mlx5_core]".into())]),
            ("ens1np0".into(), vec![("a\"b".into(), "1".into()), ("mtu".into(), "4200\n".into())]),
            ("idle".into(), vec![]),
        ]
        .into();
        let maps: DeviceConfig =
            ports.iter().map(|(port, leaves)| (port.clone(), leaves.iter().cloned().collect())).collect();
        assert_eq!(StoredConfig::of_sorted(&ports), StoredConfig::new(&maps));
        assert_eq!(StoredConfig::of_sorted(&ports).values(), maps);
    }

    #[test]
    fn objects_nest_by_dots_scalar_lists_stay_one_value_and_nulls_vanish() {
        let value = serde_json::json!({
            "trust": "dscp", "pfc": [3], "off": [], "mtu": 9000, "alias": null,
            "dscp_to_tc": {"26": 3, "48": 6}, "tcs": [{"tsa": "ets", "bw": 50}]
        });
        let mut leaves = Vec::new();
        flatten(&value, "", &mut leaves);
        let into: BTreeMap<String, String> = leaves.into_iter().collect();
        let got: Vec<(&str, &str)> = into.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            got,
            [
                ("dscp_to_tc.26", "3"),
                ("dscp_to_tc.48", "6"),
                ("mtu", "9000"),
                ("off", "[]"),
                ("pfc", "[3]"),
                ("tcs.0.bw", "50"),
                ("tcs.0.tsa", "ets"),
                ("trust", "dscp"),
            ]
        );
    }
}
