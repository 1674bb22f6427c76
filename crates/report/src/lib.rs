//! fabcheck-report
