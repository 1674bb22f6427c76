//! `config.json`: every device's configuration values, flattened, for `fabcheck diff` and
//! `--state` to compare with another run's (docs/findings-json.md, "config.json").

use crate::{ReportError, Reporter};
use fabcheck_model::AuditResult;

/// Writes `config.json`: `{"devices": {DEVICE: {PORT: {SETTING: VALUE}}}}`, port `""` for the
/// device's own settings, one device per line. Apart from findings.json because it is large
/// (every setting of every port) and only comparisons read it.
///
/// Each device's values are written as the compact JSON they are kept in: pretty-printing them
/// meant parsing every device's back into maps, most of the cost of this file.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConfigReporter;

impl Reporter for ConfigReporter {
    fn file_name(&self) -> &'static str {
        "config.json"
    }

    fn write(&self, r: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        let fail = |e: std::io::Error| ReportError::render(self.file_name(), e);
        out.write_all(b"{\"devices\": {").map_err(fail)?;
        for (i, (name, values)) in r.config.devices.iter().enumerate() {
            out.write_all(if i == 0 { b"\n  " } else { b",\n  " }).map_err(fail)?;
            serde_json::to_writer(&mut *out, name).map_err(|e| fail(e.into()))?;
            write!(out, ": {}", values.as_json()).map_err(fail)?;
        }
        out.write_all(b"\n}}\n").map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::FabricConfig;
    use fabcheck_model::config::{DeviceConfig, StoredConfig};

    fn device(port: &str, setting: &str, value: &str) -> StoredConfig {
        let mut values = DeviceConfig::new();
        values.entry(port.into()).or_default().insert(setting.into(), value.into());
        StoredConfig::new(&values)
    }

    /// What `fabcheck diff` and `--state` read back is what was kept, names with quotes and
    /// backslashes included; one line per device.
    #[test]
    fn reads_back_as_written_one_device_per_line() {
        let mut r = AuditResult::default();
        r.config.devices.insert("gpu\"01\\".into(), device("ens1np0", "mlnx_qos.trust", "dscp"));
        r.config.devices.insert("leaf1".into(), device("", "modules", "[mlx5_core]"));
        let text = String::from_utf8(ConfigReporter.render(&r).unwrap()).unwrap();
        let back: FabricConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r.config);
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.lines().nth(2).unwrap().starts_with("  \"leaf1\": {\"\":{\"modules\""), "{text}");
    }

    /// A device kept without values (a default) is still JSON.
    #[test]
    fn a_device_without_values_is_an_empty_map() {
        let mut r = AuditResult::default();
        r.config.devices.insert("gpu01".into(), StoredConfig::default());
        let text = String::from_utf8(ConfigReporter.render(&r).unwrap()).unwrap();
        let back: FabricConfig = serde_json::from_str(&text).unwrap();
        assert!(back.devices["gpu01"].values().is_empty(), "{text}");
    }

    #[test]
    fn no_device_is_an_empty_map() {
        let text = String::from_utf8(ConfigReporter.render(&AuditResult::default()).unwrap()).unwrap();
        let back: FabricConfig = serde_json::from_str(&text).unwrap();
        assert!(back.devices.is_empty());
    }
}
