//! The tribunal eval judge: arenas, mechanical checks, GREEN/RED verdicts, reports.
