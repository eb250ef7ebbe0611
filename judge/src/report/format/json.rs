//! The JSON report: the [`Report`] itself, serialised (its field names are
//! the contract; [`crate::report::REPORT_VERSION`] its version).

use crate::report::Report;

impl Report {
    /// Pretty JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|e| {
            // Serialising plain data with string keys cannot fail.
            format!("{{\"error\": {:?}}}", e.to_string())
        });
        s.push('\n');
        s
    }
}
