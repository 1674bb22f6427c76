//! `report.html`: one self-contained page for whoever is paged at 3 a.m.

use crate::view::View;
use crate::{ReportError, Reporter};
use fabcheck_model::AuditResult;
use tera::{Context, Tera};

const TEMPLATE: &str = include_str!("../../../templates/report.html.tera");

/// The name the template is registered under. It must end in `.html`: Tera turns autoescaping on
/// by the template name's suffix, and every value in this page comes from devices or the
/// inventory, so none of it may be taken as markup.
const NAME: &str = "report.html";

/// Writes `report.html` from `templates/report.html.tera`.
///
/// The page loads nothing: CSS and the small search script are inline, there are no fonts, images
/// or links to other hosts, so it opens from a CI artifact, a jump host or a laptop on a plane.
/// Severity filters are plain checkboxes and CSS, and work without JavaScript.
#[derive(Debug, Clone, Copy, Default)]
pub struct HtmlReporter;

impl Reporter for HtmlReporter {
    fn file_name(&self) -> &'static str {
        "report.html"
    }

    fn render(&self, result: &AuditResult) -> Result<Vec<u8>, ReportError> {
        let err = |e| ReportError::render(self.file_name(), e);
        let mut tera = Tera::new();
        tera.add_raw_template(NAME, TEMPLATE).map_err(err)?;
        let context = Context::from_serialize(&View::new(result)).map_err(err)?;
        Ok(tera.render(NAME, &context).map_err(err)?.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn render(r: &AuditResult) -> String {
        String::from_utf8(HtmlReporter.render(r).unwrap()).unwrap()
    }

    #[test]
    fn loads_nothing_from_anywhere() {
        let html = render(&fixture::audit_result());
        for needle in [
            "http://",
            "https://",
            "<link",
            "<script src",
            "<img",
            "@import",
            "url(",
        ] {
            assert!(!html.contains(needle), "found {needle:?}");
        }
        assert!(html.starts_with("<!doctype html>"));
    }

    #[test]
    fn escapes_values_from_devices() {
        let html = render(&fixture::audit_result());
        assert!(!html.contains("<script>alert"), "message was not escaped");
        assert!(
            html.contains("<p>out_of_buffer grew by 1523 &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; | rx</p>"),
            "{html}"
        );
        // The only script is ours.
        assert_eq!(html.matches("<script").count(), 1);
    }

    #[test]
    fn banner_is_coloured_by_verdict() {
        let html = render(&fixture::audit_result());
        assert!(html.contains(r#"<header class="banner fail">"#));
        assert!(html.contains("FAIL"));
        assert!(html.contains(
            "2 critical, 2 errors, 3 warnings, 1 info on 3 hosts and 1 switch (1 unreachable)"
        ));
        let clean = render(&fixture::clean_result());
        assert!(clean.contains(r#"<header class="banner pass">"#));
        assert!(clean.contains("No findings."));
    }

    #[test]
    fn shows_every_finding_device_and_moving_counter() {
        let r = fixture::audit_result();
        let html = render(&r);
        assert_eq!(
            html.matches(r#"<article class="finding "#).count(),
            r.findings.len()
        );
        assert_eq!(
            html.matches(r#"<tr class="device"#).count(),
            r.devices.len()
        );
        assert_eq!(html.matches(r#"<tr class="counter"#).count(), 3);
        assert!(html.contains("3 unchanged counters not shown"));
        assert!(
            html.contains(
                "<tr><th>evidence</th><td><a href=\"evidence/gpu01/mlnx_qos_mlx5_0.txt\"><code>gpu01/mlnx_qos_mlx5_0.txt</code></a></td></tr>"
            )
        );
        assert!(html.contains("<tr><th>expected</th><td><code>&lt;= 10000/s</code></td></tr>"));
        assert!(html.contains(r#"<tr class="device unreachable""#));
    }

    proptest::proptest! {
        #[test]
        fn values_never_add_markup(value in "\\PC+|[<>&\"'/a-z ]{1,16}") {
            let with = |v: &str| {
                let mut r = fixture::audit_result();
                let f = &mut r.findings[0];
                f.message = v.to_string();
                f.expected = v.to_string();
                f.actual = v.to_string();
                f.port = Some(v.to_string());
                f.evidence = vec![v.to_string()];
                render(&r)
            };
            let (html, plain) = (with(&value), with("x"));
            // `<` and `"` only come from the template, so values cannot open a tag or an attribute.
            proptest::prop_assert_eq!(html.matches('<').count(), plain.matches('<').count());
            proptest::prop_assert_eq!(html.matches('"').count(), plain.matches('"').count());
        }
    }
}
