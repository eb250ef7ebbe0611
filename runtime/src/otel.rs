//! Exporting a run's spans to OpenTelemetry (feature `otel`): [`layer`]
//! turns the run's tracing spans into OpenTelemetry spans
//! through `tracing-opentelemetry`, with the GenAI conventions' names and
//! attributes.
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt;
//! # fn demo<T>(tracer: T)
//! # where T: tribunal_runtime::otel::opentelemetry::trace::Tracer + Send + Sync + 'static,
//! #     T::Span: Send + Sync {
//! // `tracer`: from the embedder's OpenTelemetry SDK set-up (an OTLP
//! // exporter, a collector, …).
//! let subscriber = tracing_subscriber::registry().with(tribunal_runtime::otel::layer(tracer));
//! tracing::subscriber::set_global_default(subscriber).unwrap();
//! # }
//! ```
//!
//! The layer takes `INFO` spans only: no log event (whose text could hold a
//! request body at trace level) becomes a span event, so an exported trace
//! holds names, counts, codes and ids — never a prompt, an answer or a key.

pub use opentelemetry;
pub use tracing_opentelemetry;

use tracing::Subscriber;
use tracing_opentelemetry::OpenTelemetryLayer;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterFn, Filtered};
use tracing_subscriber::registry::LookupSpan;

/// A `tracing` layer that exports spans at `INFO` and above (the run's
/// GenAI spans; not the driver's debug spans, not HTTP libraries' spans)
/// and no log events through `tracer`, without source locations, thread
/// names or targets. A span's parent is its nearest exported ancestor.
pub fn layer<S, T>(tracer: T) -> Filtered<OpenTelemetryLayer<S, T>, FilterFn, S>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
    T: opentelemetry::trace::Tracer + Send + Sync + 'static,
    T::Span: Send + Sync,
{
    tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_filter(FilterFn::new(|metadata| {
            metadata.is_span() && *metadata.level() <= tracing::Level::INFO
        }))
}
