//! `saquery -s` (infiniband-diags `saquery.c`, `dump_sm_info_record`): one block per SM the SA
//! knows, each a `SMInfoRecord dump:` line and dotted key lines indented by two tabs:
//!
//! ```text
//! SMInfoRecord dump:
//!         RID
//!         LID...................1
//!         SMInfo dump:
//!         GUID..................0x0002c90300a1b2c4
//!         SM_Key................0x0000000000000000
//!         ActCount..............123456
//!         Priority..............15
//!         SMState...............3
//! ```
//!
//! The layout is the tool's `printf`; no published capture of it was found, so the parser is
//! tested on that format (as the lab prints it) and on arbitrary input. Other lines are warnings.

use crate::lines::{cut_line_skipped, numbered, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::saquery_sm::{SmRecord, SmRecords};

/// Parses `saquery -s`.
pub fn parse(text: &str) -> ParseResult<SmRecords> {
    let mut out = SmRecords::default();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let (n, t) = (l.n, l.text.trim());
        if t.is_empty() || t == "RID" || t == "SMInfo dump:" {
            continue;
        }
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if t == "SMInfoRecord dump:" {
            out.records.push(SmRecord::default());
            continue;
        }
        let field = t.split_once("..").map(|(k, v)| (k, v.trim_start_matches('.').trim()));
        let (Some(record), Some((key, value))) = (out.records.last_mut(), field) else {
            warnings.push(ParseWarning::at(n, unrecognised(t)));
            continue;
        };
        let number = || value.parse::<u32>().ok();
        let known = match key {
            "LID" => number().map(|v| record.lid = Some(v)).is_some(),
            "GUID" => {
                record.guid = Some(value.to_string());
                true
            }
            "SM_Key" | "ActCount" => true,
            "Priority" => number().map(|v| record.priority = Some(v)).is_some(),
            "SMState" => number().map(|v| record.state = Some(v)).is_some(),
            _ => false,
        };
        if !known {
            warnings.push(ParseWarning::at(n, unrecognised(t)));
        }
    }
    if out.records.is_empty() {
        return Err(ParseError::at(0, "no `SMInfoRecord dump:` block: not `saquery -s` output"));
    }
    Ok(Parsed { value: out, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "SMInfoRecord dump:\n\t\tRID\n\t\tLID...................1\n\t\tSMInfo dump:\n\t\tGUID..................0x0002c90300a1b2c4\n\t\tSM_Key................0x0000000000000000\n\t\tActCount..............123456\n\t\tPriority..............15\n\t\tSMState...............3\nSMInfoRecord dump:\n\t\tRID\n\t\tLID...................7\n\t\tSMInfo dump:\n\t\tGUID..................0x0002c90300a1b2d0\n\t\tSM_Key................0x0000000000000000\n\t\tActCount..............99\n\t\tPriority..............13\n\t\tSMState...............2\n";

    #[test]
    fn a_master_and_a_standby() {
        let p = parse(TWO).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let r = &p.value.records;
        assert_eq!((r[0].lid, r[0].priority, r[0].state), (Some(1), Some(15), Some(3)));
        assert_eq!(r[1].guid.as_deref(), Some("0x0002c90300a1b2d0"));
        assert_eq!((p.value.count(3), p.value.count(2)), (1, 1));
        assert!(parse("ibwarn: [1] sa_query: umad_recv failed\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, TWO);
}
