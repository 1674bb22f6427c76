//! The correlate stage, shared by `audit` and `bench`: what the checks found, joined across
//! devices. [`paths`] marks every GPU path hop by hop and places the blame for links whose ends
//! disagree; [`dcqcn`] finds the hosts that leave the switches' ECN marks unanswered; [`bench`]
//! ties slow or failed benchmark runs to the counters and host findings that explain them;
//! [`causes`] decides, by mechanism and in one table, which finding explains which, and
//! [`incidents`] groups every finding under the root cause its explanations lead to.

pub mod bench;
pub mod causes;
pub mod dcqcn;
pub mod flows;
pub mod incidents;
pub mod job;
pub mod paths;

pub use bench::correlate;

/// Decides what explains what and groups the findings into incidents: the last step of every
/// judging run, and of an earlier run read back without its incidents (a state or report written
/// before they existed, an evidence snapshot judged now).
pub fn root_causes(result: &mut fabcheck_model::AuditResult) {
    causes::explain(result);
    incidents::group(result);
}
