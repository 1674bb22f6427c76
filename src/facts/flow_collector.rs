//! A flow collector's facts: the `rdma-flow-record/1` lines its command printed. A line that is
//! not a record is kept as an unread line with its number and why; the rest are read.
use super::reader::Reader;
use crate::platform::flow_collector::FLOWS_KEY;
use fabcheck_flows::record::{FlowRecord, read_lines};
use fabcheck_parse::{ParseError, ParseResult, ParseWarning, Parsed};

/// The records of the collector's output; none when the command failed (a finding says why).
/// Each record is a line of its own, so the records of an output cut short are still read.
pub fn read(out: &mut Reader) -> Vec<FlowRecord> {
    out.get_lines(FLOWS_KEY, None, parse).unwrap_or_default()
}

/// An output with lines and no record at all is not flow records; an empty one is no flows.
fn parse(text: &str) -> ParseResult<Vec<FlowRecord>> {
    let (records, bad) = read_lines(text);
    if records.is_empty()
        && let Some((line, why)) = bad.first()
    {
        return Err(ParseError::at(*line, format!("not an rdma-flow-record/1 line: {why}")));
    }
    let warnings = bad
        .into_iter()
        .map(|(line, why)| ParseWarning { line, message: format!("not an rdma-flow-record/1 line: {why}") })
        .collect();
    Ok(Parsed { value: records, warnings })
}
