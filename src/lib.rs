//! fabcheck library.
