//! Reading a device's evidence into facts, once: every way that can fail (transport error,
//! missing tool, failed command, unparsable output) becomes the matching `collect.*` or `ssh.*`
//! finding, and every output read gets a status (complete; partial with each skipped line's
//! number and text; failed), so checks only ever see facts and the report says what was not
//! understood.

use crate::evidence::{DeviceRecord, Evidence};
use fabcheck_model::{Finding, OutputRead, ReadStatus, Severity, UnreadLine};
use fabcheck_parse::{ParseResult, ParseWarning};

/// What came of one output.
pub enum Got<T> {
    /// Parsed.
    Value(T),
    /// The command ran and failed (exit status, stderr); no finding recorded yet.
    Failed { status: Option<u32>, stderr: String },
    /// Not collected, or already reported as a finding.
    Nothing,
}

/// What a reader makes of an output that was cut short (a timeout, a lost connection,
/// `--max-output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WhenCut {
    /// Unknown, as if it had not been collected: what is missing may be just what a check reads
    /// (a PFC line, the subnet manager's answer, a port's ECN section), and an absence read as
    /// a setting is a false configuration fault. The cut is the finding.
    Unknown,
    /// Read as far as it goes: every line stands alone (a flow record), so what arrived is true.
    ReadWhatArrived,
}

/// The evidence of one device and the findings its reading produced.
pub struct Reader<'a> {
    record: &'a DeviceRecord,
    /// Findings about collection itself.
    pub findings: Vec<Finding>,
    /// Each output read that was not understood completely, in reading order.
    pub unread: Vec<OutputRead>,
    /// Tools already reported missing (one finding per tool, not per command).
    missing_tools: Vec<String>,
}

impl<'a> Reader<'a> {
    /// Reads `record`.
    pub fn new(record: &'a DeviceRecord) -> Reader<'a> {
        Reader { record, findings: Vec::new(), unread: Vec::new(), missing_tools: Vec::new() }
    }

    /// The device name.
    pub fn device(&self) -> &str {
        &self.record.name
    }

    /// The evidence file of `key` (for a finding's `evidence`).
    pub fn file(&self, key: &str) -> String {
        super::evidence_file(&self.record.name, key)
    }

    /// The record being read (to decide what else to read, as collection did).
    pub fn record(&self) -> &DeviceRecord {
        self.record
    }

    /// When a counter phase (`t0`, `t1`) ran: from its first command sent to its last answer.
    pub fn span_of_phase(&self, phase: &str) -> Option<(u64, u64)> {
        let suffix = format!(".{phase}");
        let phase = self.record.outputs.iter().filter(|e| e.key.ends_with(&suffix));
        let start = phase.clone().map(|e| e.started_ms).min()?;
        let end = phase.map(|e| e.started_ms.saturating_add(e.duration_ms)).max()?;
        Some((start, end))
    }

    /// When output `key` was sent, and when its answer was complete (milliseconds since the epoch).
    pub fn span(&self, key: &str) -> Option<(u64, u64)> {
        self.record.output(key).map(|e| (e.started_ms, e.started_ms.saturating_add(e.duration_ms)))
    }

    /// Parses output `key`; a failed command becomes a finding (see [`Reader::get_or_failed`]).
    pub fn get<T>(&mut self, key: &str, port: Option<&str>, parse: impl FnOnce(&str) -> ParseResult<T>) -> Option<T> {
        let got = self.read(key, port, WhenCut::Unknown, parse);
        self.settle(key, port, got)
    }

    /// As [`Reader::get`], for an output whose every line stands alone: when it was cut short,
    /// the lines that arrived are read (the cut is still the finding).
    pub fn get_lines<T>(
        &mut self,
        key: &str,
        port: Option<&str>,
        parse: impl FnOnce(&str) -> ParseResult<T>,
    ) -> Option<T> {
        let got = self.read(key, port, WhenCut::ReadWhatArrived, parse);
        self.settle(key, port, got)
    }

    /// The value, or `None` with a failed command reported.
    fn settle<T>(&mut self, key: &str, port: Option<&str>, got: Got<T>) -> Option<T> {
        match got {
            Got::Value(v) => Some(v),
            Got::Failed { status, stderr } => {
                self.command_failed(key, port, status, &stderr);
                None
            }
            Got::Nothing => None,
        }
    }

    /// Reports output `key`'s command as failed (`collect.command_failed`), with its exit status and
    /// the last line of its stderr.
    pub fn command_failed(&mut self, key: &str, port: Option<&str>, status: Option<u32>, stderr: &str) {
        let e = self.record.output(key);
        let command = e.map(|e| e.command.as_str()).unwrap_or(key);
        let status = status.map_or("no exit status".to_string(), |s| format!("exit status {s}"));
        let finding = Finding::new(
            "collect.command_failed",
            Severity::Error,
            self.device(),
            format!("`{command}` failed ({status}): {}", last_line(stderr)),
        )
        .expected_actual("exit status 0", status)
        .evidence(self.file(key));
        self.push(finding, port);
    }

    /// Parses output `key`, leaving a non-zero exit status to the caller (sminfo's is a verdict).
    /// Output cut short is unknown ([`Got::Nothing`]), its cut the finding.
    pub fn get_or_failed<T>(
        &mut self,
        key: &str,
        port: Option<&str>,
        parse: impl FnOnce(&str) -> ParseResult<T>,
    ) -> Got<T> {
        self.read(key, port, WhenCut::Unknown, parse)
    }

    fn read<T>(
        &mut self,
        key: &str,
        port: Option<&str>,
        when_cut: WhenCut,
        parse: impl FnOnce(&str) -> ParseResult<T>,
    ) -> Got<T> {
        let Some(e) = self.record.output(key) else {
            return Got::Nothing;
        };
        // Why the output is incomplete, when it is: it is still read, as what arrived.
        let mut cut = None;
        if let Some(err) = &e.transport_error {
            let f =
                Finding::new(&err.code, Severity::Error, self.device(), format!("`{}`: {}", e.command, err.message))
                    .evidence(self.file(key));
            self.push(f, port);
            if e.stdout.is_empty() {
                return Got::Nothing;
            }
            cut = Some(format!("cut short ({}) after {} bytes", err.code, e.stdout.len()));
        }
        if stopped_on_device(e) {
            let f = Finding::new(
                "collect.command_timeout",
                Severity::Error,
                self.device(),
                format!(
                    "`{}` did not finish within --command-timeout: the host stopped it (exit status {}), and only what it printed before is read",
                    crate::collect::unbounded(&e.command),
                    e.exit_status.unwrap_or(crate::collect::TIMED_OUT_STATUS)
                ),
            )
            .expected_actual("finished within --command-timeout", "stopped by timeout")
            .evidence(self.file(key));
            self.push(f, port);
            cut = Some(format!("cut short (stopped on the host at --command-timeout) after {} bytes", e.stdout.len()));
        }
        if e.truncated {
            let kept = e.stdout.len();
            let f = Finding::new(
                "collect.output_truncated",
                Severity::Error,
                self.device(),
                format!(
                    "`{}` printed more than --max-output: only its first {kept} bytes were kept, so what it reports is unknown and was not checked",
                    e.command
                ),
            )
            .expected_actual(format!("at most {kept} bytes"), "more")
            .evidence(self.file(key));
            self.push(f, port);
            cut = Some(format!("cut at --max-output after {kept} bytes"));
        }
        if tool_missing(e) {
            let tool = crate::collect::unbounded(&e.command).split_whitespace().next().unwrap_or("").to_string();
            if self.missing_tools.contains(&tool) {
                return Got::Nothing;
            }
            self.missing_tools.push(tool.clone());
            let f = Finding::new(
                "collect.tool_missing",
                Severity::Error,
                self.device(),
                format!("`{tool}` is not installed, so what it reports was not checked: {}", last_line(&e.stderr)),
            )
            .expected_actual(format!("{tool} installed"), "command not found")
            .evidence(self.file(key));
            self.push(f, None);
            return Got::Nothing;
        }
        if when_cut == WhenCut::Unknown
            && let Some(cut) = cut.take()
        {
            if self.unread.iter().any(|r| r.evidence == self.file(key)) {
                return Got::Nothing;
            }
            self.unread.push(OutputRead {
                evidence: self.file(key),
                command: e.command.clone(),
                status: ReadStatus::Failed,
                error: Some(format!("{cut}: not read, since what is missing may be what a check judges")),
                lines: Vec::new(),
            });
            return Got::Nothing;
        }
        let text = e.stdout_text();
        // A command cut short, by the transport or on the host, has no exit status to judge.
        if e.exit_status != Some(0) && e.transport_error.is_none() && !stopped_on_device(e) {
            return Got::Failed { status: e.exit_status, stderr: e.stderr.clone() };
        }
        match parse(&text) {
            Ok(parsed) => {
                let incomplete = !parsed.warnings.is_empty() || cut.is_some();
                if incomplete && !self.unread.iter().any(|r| r.evidence == self.file(key)) {
                    let lines = unread_lines(&text, &parsed.warnings);
                    self.unread.push(OutputRead {
                        evidence: self.file(key),
                        command: e.command.clone(),
                        status: ReadStatus::Partial,
                        error: cut,
                        lines,
                    });
                }
                Got::Value(parsed.value)
            }
            // What was cut short is not expected to read: the cut is the finding, and the
            // unread list says both.
            Err(err) if cut.is_some() => {
                self.unread.push(OutputRead {
                    evidence: self.file(key),
                    command: e.command.clone(),
                    status: ReadStatus::Failed,
                    error: cut.map(|c| format!("{c}; {err}")),
                    lines: Vec::new(),
                });
                Got::Nothing
            }
            Err(err) => {
                self.unreadable(key, port, &err.to_string());
                Got::Nothing
            }
        }
    }

    /// Reports output `key` as not readable at all: kept in the unread list and a
    /// `collect.parse_error` that says why.
    pub fn unreadable(&mut self, key: &str, port: Option<&str>, why: &str) {
        let Some(e) = self.record.output(key) else { return };
        let (command, source) = (e.command.clone(), e.source.clone());
        self.unread.push(OutputRead {
            evidence: self.file(key),
            command: command.clone(),
            status: ReadStatus::Failed,
            error: Some(why.to_string()),
            lines: Vec::new(),
        });
        let f = Finding::new(
            "collect.parse_error",
            Severity::Error,
            self.device(),
            format!("cannot read the output of `{command}` ({}): {why}", self.file(key)),
        )
        .expected_actual(format!("{source} output"), "unparsable output")
        .evidence(self.file(key));
        self.push(f, port);
    }

    fn push(&mut self, mut finding: Finding, port: Option<&str>) {
        finding.port = port.map(str::to_string);
        self.findings.push(finding);
    }
}

/// The skipped lines with their text, so a reader of the report need not open the file.
fn unread_lines(text: &str, warnings: &[ParseWarning]) -> Vec<UnreadLine> {
    let lines: Vec<&str> = text.lines().collect();
    warnings
        .iter()
        .map(|w| UnreadLine {
            line: w.line,
            text: w.line.checked_sub(1).and_then(|i| lines.get(i)).map_or(String::new(), |l| l.to_string()),
            why: w.message.clone(),
        })
        .collect()
}

/// The host's `timeout` stopped the command at its limit (the collector bounds Linux hosts'
/// commands with their `timeout`).
fn stopped_on_device(e: &Evidence) -> bool {
    crate::collect::stopped_on_host(&e.command, e.exit_status, e.duration_ms)
}

/// bash prints `bash: line 1: X: command not found` and exits 127; sh says `X: not found`.
fn tool_missing(e: &Evidence) -> bool {
    e.exit_status == Some(127) || e.stderr.contains("command not found")
}

fn last_line(text: &str) -> &str {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no error output")
}
