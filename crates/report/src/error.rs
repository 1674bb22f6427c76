//! The one error type of this crate.

use std::error::Error as StdError;
use std::io;
use std::path::PathBuf;

/// A report could not be rendered or written.
///
/// Every variant names the file, so `fabcheck: could not write out/metrics.prom: Permission denied`
/// tells the user which output to look at. The cause is the error's `source()`: print the chain
/// (anyhow's `{:#}`) to see it. Rendering errors box their cause so that the versions of tera,
/// serde_json and quick-junit stay out of this crate's public API.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A format could not be produced from the audit result (a template or encoder failed).
    /// This is a bug in fabcheck, not in the user's set-up.
    #[error("could not render {file}")]
    Render {
        /// The report file, e.g. `report.html`.
        file: &'static str,
        /// What the template engine or encoder said.
        #[source]
        source: Box<dyn StdError + Send + Sync + 'static>,
    },
    /// The output directory could not be created.
    #[error("could not create the report directory {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// A report file could not be written or moved into place.
    #[error("could not write {}", path.display())]
    Write {
        /// The file that was being written (its final name, not the temporary one).
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

impl ReportError {
    /// Wraps a rendering failure of `file`.
    pub(crate) fn render(
        file: &'static str,
        source: impl Into<Box<dyn StdError + Send + Sync + 'static>>,
    ) -> ReportError {
        ReportError::Render { file, source: source.into() }
    }
}
