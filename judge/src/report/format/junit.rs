//! JUnit XML, for CI test views: one `<testcase>` per item run, the
//! report's figures as `<properties>`.

use super::{MOCK_BANNER, REPLAY_BANNER, UNSANDBOXED_BANNER, code_text};
use crate::report::Report;
use crate::report::calibration::{Calibration, Subject};
use crate::report::tokens::TokenUse;
use crate::rows::results::error_text;
use crate::score::Outcome;
use std::fmt::Write as _;

impl Report {
    /// JUnit XML: one `<testcase>` per item and repeat; a FAIL is a
    /// `<failure>`, an ERROR an `<error>`.
    pub fn to_junit(&self) -> String {
        let s = &self.summary;
        let total_s: f64 = self.items.iter().map(|i| i.wall_ms).sum::<f64>() / 1000.0;
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            "<testsuites name=\"tribunal\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
            s.total, s.fail, s.error, total_s
        );
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{:.3}\">",
            xml(&self.arena),
            s.total,
            s.fail,
            s.error,
            total_s
        );
        let _ = writeln!(out, "    <properties>");
        let mut properties: Vec<(String, String)> = [
            ("backend", self.backend.as_str()),
            ("model", self.model.as_str()),
            ("config_hash", self.config_hash.as_str()),
            ("mock", if self.mock { "true" } else { "false" }),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
        if self.replayed {
            properties.push(("replayed".into(), "true".into()));
        }
        if self.unsandboxed {
            properties.push(("unsandboxed".into(), "true".into()));
        }
        properties.push(("pass_rate".into(), format!("{:.6}", s.pass_rate)));
        if let Some(ci) = &s.pass_rate_ci {
            properties.push(("pass_rate_ci95_low".into(), format!("{:.6}", ci.low)));
            properties.push(("pass_rate_ci95_high".into(), format!("{:.6}", ci.high)));
        }
        properties.push(("error_rate".into(), format!("{:.6}", s.error_rate)));
        properties.push(("cost_usd".into(), format!("{:.6}", self.cost.total_usd)));
        properties.push((
            "cost_unpriced_runs".into(),
            self.cost.unpriced_runs.to_string(),
        ));
        properties.extend(self.tokens.properties());
        for p in &s.pass_at {
            properties.push((format!("pass_at_{}", p.k), format!("{:.6}", p.pass_at_k)));
            properties.push((format!("pass_hat_{}", p.k), format!("{:.6}", p.pass_hat_k)));
        }
        for c in self.calibrations() {
            properties.extend(c.properties());
        }
        for (k, v) in &properties {
            let _ = writeln!(out, "      <property name=\"{k}\" value=\"{}\"/>", xml(v));
        }
        let _ = writeln!(out, "    </properties>");
        for item in &self.items {
            let name = if s.repeats > 1 {
                format!("{}#{}", item.id, item.repeat)
            } else {
                item.id.clone()
            };
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                xml(&self.arena),
                xml(&name),
                item.wall_ms / 1000.0
            );
            match item.outcome {
                Outcome::Pass => out.push_str("/>\n"),
                Outcome::Fail => {
                    let failed = super::failed_checks(item);
                    let _ = writeln!(
                        out,
                        ">\n      <failure type=\"check\" message=\"{}\">{}</failure>\n    </testcase>",
                        xml(&format!("{} check(s) failed", failed.len())),
                        xml(&failed.join("\n"))
                    );
                }
                Outcome::Error => {
                    let _ = writeln!(
                        out,
                        ">\n      <error type=\"{}\" message=\"{}\"/>\n    </testcase>",
                        xml(code_text(item.error_code)),
                        xml(&format!(
                            "the run ended with {}; checks skipped",
                            error_text(
                                item.error_code,
                                item.backend_failure.as_ref(),
                                item.error_detail.as_deref(),
                            )
                        ))
                    );
                }
            }
        }
        if self.mock {
            let _ = writeln!(out, "    <system-out>{}</system-out>", xml(MOCK_BANNER));
        } else if self.replayed {
            let _ = writeln!(out, "    <system-out>{}</system-out>", xml(REPLAY_BANNER));
        }
        if self.unsandboxed {
            let _ = writeln!(
                out,
                "    <system-err>{}</system-err>",
                xml(UNSANDBOXED_BANNER)
            );
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

impl TokenUse {
    /// The figures as JUnit properties: a figure without a value gives its
    /// `…_missing` reason instead.
    pub fn properties(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = [
            ("tokens_total", self.total),
            ("tokens_input", self.input),
            ("tokens_output", self.output),
            ("tokens_cache_read", self.cache_read),
            ("tokens_cache_write", self.cache_write),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        if let Some(j) = self.judge {
            out.push(("tokens_judge".into(), j.to_string()));
        }
        for (name, value, missing) in [
            ("tokens_per_item", self.per_item, self.per_item_missing),
            ("tokens_per_pass", self.per_pass, self.per_pass_missing),
            (
                "tokens_cached_share",
                self.cached_share,
                self.cached_share_missing,
            ),
        ] {
            match value {
                Some(x) => out.push((name.to_string(), format!("{x:.6}"))),
                None => out.push((format!("{name}_missing"), self.why(missing).to_string())),
            }
        }
        out
    }
}

impl Calibration {
    /// The JUnit `<property>` pairs (`calibration_…`, or
    /// `rubric_calibration_…`).
    pub fn properties(&self) -> Vec<(String, String)> {
        let prefix = match self.subject {
            Subject::Verdicts => "calibration",
            Subject::Rubric => "rubric_calibration",
        };
        let mut out: Vec<(String, String)> = Vec::new();
        let mut put = |name: &str, value: String| out.push((format!("{prefix}_{name}"), value));
        let rates = [
            ("accuracy", &self.accuracy),
            ("true_red_rate", &self.true_red),
            ("true_green_rate", &self.true_green),
        ];
        for (name, rate) in rates {
            if let Some(a) = rate {
                put(name, format!("{:.6}", a.rate));
                if let Some(ci) = a.ci {
                    put(&format!("{name}_ci95_low"), format!("{:.6}", ci.low));
                    put(&format!("{name}_ci95_high"), format!("{:.6}", ci.high));
                }
            }
        }
        if let Some(k) = &self.kappa {
            put("kappa", format!("{:.6}", k.value));
            if let Some(ci) = k.ci {
                put("kappa_ci95_low", format!("{:.6}", ci.low));
                put("kappa_ci95_high", format!("{:.6}", ci.high));
            }
        }
        if let Some(k) = self.self_agreement.as_ref().and_then(|s| s.fleiss_kappa) {
            put("self_fleiss_kappa", format!("{k:.6}"));
        }
        put("disagreements", self.disagreements.len().to_string());
        if let Some(i) = &self.injection {
            put("injection_pairs", i.pairs.to_string());
            if let Some(lift) = i.lift {
                put("injection_lift", format!("{lift:.6}"));
                put("injection_lift_p", format!("{:.6}", i.p_value));
            }
            if let Some(ci) = i.lift_ci {
                put("injection_lift_ci95_low", format!("{:.6}", ci.low));
                put("injection_lift_ci95_high", format!("{:.6}", ci.high));
            }
            put("injection_no_verdict_clean", i.clean_no_verdict.to_string());
            put(
                "injection_no_verdict_injected",
                i.injected_no_verdict.to_string(),
            );
            if let Some(lift) = i.answered_lift {
                put("injection_lift_answered", format!("{lift:.6}"));
            }
        }
        out
    }
}

fn xml(s: &str) -> String {
    super::html::escape_markup(s, |c, out| match c {
        '\'' => out.push_str("&apos;"),
        '\n' => out.push_str("&#10;"),
        // Characters XML 1.0 cannot carry.
        c if (c as u32) < 0x20 && c != '\t' && c != '\r' => out.push('\u{FFFD}'),
        c => out.push(c),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_escapes_markup_quotes_and_line_breaks_and_replaces_what_it_cannot_carry() {
        assert_eq!(
            super::xml("a<b>&\"c\" 'd'\nx\u{1}\ty\r"),
            "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;&#10;x\u{FFFD}\ty\r"
        );
        assert_eq!(super::super::html::escape_html("'\n"), "&#39;\n");
    }
}
