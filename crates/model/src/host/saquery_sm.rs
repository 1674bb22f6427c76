//! Facts of `saquery -s` (infiniband-diags): every subnet manager the subnet administrator
//! knows, as its parser (`fabcheck_parse::linux::saquery_sm`) produces them.

use serde::Serialize;

/// The SMInfo records.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SmRecords {
    /// In output order.
    pub records: Vec<SmRecord>,
}

/// One subnet manager.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SmRecord {
    /// Its port's LID.
    pub lid: Option<u32>,
    /// Its port GUID.
    pub guid: Option<String>,
    /// Its priority (0-15).
    pub priority: Option<u32>,
    /// IBA SMState: 0 not active, 1 discovering, 2 standby, 3 master.
    pub state: Option<u32>,
}

impl SmRecords {
    /// How many are in this state.
    pub fn count(&self, state: u32) -> usize {
        self.records.iter().filter(|r| r.state == Some(state)).count()
    }
}
