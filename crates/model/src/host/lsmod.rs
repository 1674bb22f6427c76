//! Facts of `lsmod`, as its parser (`fabcheck_parse::linux::lsmod`) produces them.

use serde::Serialize;

/// The loaded modules.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Lsmod {
    /// Modules in the order printed.
    pub modules: Vec<Module>,
}

/// One loaded module.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Module {
    /// Module name (underscores, as the kernel prints it).
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Reference count (the `Used by` number).
    pub used_by_count: u32,
    /// Modules that use this one.
    pub used_by: Vec<String>,
}

impl Lsmod {
    /// Whether `name` is loaded; `-` and `_` are the same, as for modprobe.
    pub fn has(&self, name: &str) -> bool {
        let name = name.replace('-', "_");
        self.modules.iter().any(|m| m.name.replace('-', "_") == name)
    }
}
