//! `config.json`: every device's configuration values, flattened, for `fabcheck diff` and
//! `--state` to compare with another run's (docs/findings-json.md, "config.json").

use crate::{ReportError, Reporter};
use fabcheck_model::AuditResult;

/// Writes `config.json`: `{"devices": {DEVICE: {PORT: {SETTING: VALUE}}}}`, port `""` for the
/// device's own settings. Apart from findings.json because it is large (every setting of every
/// port) and only comparisons read it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConfigReporter;

impl Reporter for ConfigReporter {
    fn file_name(&self) -> &'static str {
        "config.json"
    }

    fn write(&self, r: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        crate::json::write_pretty(self.file_name(), &r.config, out)
    }
}
