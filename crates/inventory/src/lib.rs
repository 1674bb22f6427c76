//! fabcheck-inventory
