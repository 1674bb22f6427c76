//! fabcheck-lab
