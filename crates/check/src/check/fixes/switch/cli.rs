//! A configuration session of the CLI platforms (Arista EOS, Cisco NX-OS, Dell OS10): enter
//! configuration mode, the lines indented as the platform's own running-config indents them
//! (each CLI takes pasted indented lines as typed ones, and an operator reads the nesting at a
//! glance), leave, and save so the change outlasts a reload.

/// One platform's session words.
pub struct Cli {
    /// Enters configuration mode: `configure`, `configure terminal`.
    pub enter: &'static str,
    /// Keeps the running configuration across a reload.
    pub save: &'static str,
    /// Spaces per level in the platform's running-config: EOS 3, NX-OS 2, OS10 1.
    pub indent: usize,
}

impl Cli {
    /// The commands of a session that enters `lines` (each with its depth, 0 at the top).
    pub fn session(&self, lines: &[(usize, String)]) -> Vec<String> {
        std::iter::once(self.enter.to_string())
            .chain(lines.iter().map(|(depth, line)| format!("{}{line}", " ".repeat(depth * self.indent))))
            .chain(["end".to_string(), self.save.to_string()])
            .collect()
    }

    /// A session entering `lines` under `interface PORT`.
    pub fn on_interface(&self, port: &str, lines: impl IntoIterator<Item = String>) -> Vec<String> {
        let mut body = vec![(0, format!("interface {port}"))];
        body.extend(lines.into_iter().map(|l| (1, l)));
        self.session(&body)
    }
}

/// Whether a fix line is a session word rather than configuration: what applying a fix to a
/// saved running-config skips (the read-back tests, src/judged/fix_read_back.rs).
pub fn is_session_word(line: &str) -> bool {
    matches!(
        line.trim(),
        "configure"
            | "configure terminal"
            | "end"
            | "write memory"
            | "copy running-config startup-config"
            | "copy running-configuration startup-configuration"
    )
}
