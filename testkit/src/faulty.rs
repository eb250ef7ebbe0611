//! A fault-injecting stand-in of each provider API: a raw HTTP/1.1 server on
//! a local socket (a raw socket, because wiremock cannot cut, stall or
//! trickle a body) that answers every streamed request with its API's
//! server-sent events ([`sse::text_events`](crate::sse::text_events)) and,
//! at the `n`th request, does what its script says: cut the stream at event
//! `k`, stall there, never answer, trickle, answer a page that is no API,
//! a JSON body cut short, an event past the reader's limit, events after the
//! end marker, a stream without usage.
//!
//! `GET {base}/models` (`/v1/models`) answers a model list, so a backend's
//! check before the first item passes, unless [`FaultyServer::start_with`]
//! is given another answer for it.

use crate::sse::{Event, event_text, text_events};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tribunal_runtime::BackendKind;

/// What the stand-in does with one model request.
#[derive(Debug, Clone)]
pub enum Fault {
    /// The whole streamed answer, as the provider sends it.
    Healthy,
    /// The status, the first `k` events, then the connection closed: no
    /// end marker.
    CutAfter(usize),
    /// The status and the first `k` events, then nothing more while the
    /// connection stays open.
    StallAfter(usize),
    /// Reads the request and never answers (the connection stays open).
    Silent,
    /// The whole stream, one byte every this often.
    Trickle(Duration),
    /// A whole answer with this status, content type and body: a page of
    /// a server that is no API, or an API's own error.
    Page {
        /// The HTTP status.
        status: u16,
        /// The `content-type` header.
        content_type: &'static str,
        /// The body.
        body: String,
    },
    /// A `200 application/json` body cut short: its `content-length`
    /// promises more than is sent before the connection closes.
    CutJson,
    /// The status, then one event of this many bytes (and no end).
    HugeEvent(usize),
    /// The whole stream, then more events after the end marker.
    AfterEnd,
    /// The whole stream without the events that carry the usage.
    NoUsage,
}

/// An HTML page, as a web server that is not an API answers.
pub fn html_page(status: u16) -> Fault {
    Fault::Page {
        status,
        content_type: "text/html; charset=utf-8",
        body: format!(
            "<!DOCTYPE html>\n<html><head><title>Error {status}</title></head><body><h1>{status}</h1></body></html>\n"
        ),
    }
}

/// A running stand-in; it stops when the test's runtime ends.
#[derive(Debug, Clone)]
pub struct FaultyServer {
    /// `http://127.0.0.1:PORT`.
    root: String,
    posts: Arc<AtomicUsize>,
    gets: Arc<AtomicUsize>,
}

impl FaultyServer {
    /// A stand-in of `kind` answering the `n`th model request with
    /// `script[n]` (the last entry repeats) and streaming `text` as the
    /// answer.
    pub async fn start(kind: BackendKind, text: &str, script: Vec<Fault>) -> FaultyServer {
        Self::start_with(kind, text, script, None).await
    }

    /// As [`start`](Self::start), with `models` as the answer to every
    /// `GET` (default: a model list).
    pub async fn start_with(
        kind: BackendKind,
        text: &str,
        script: Vec<Fault>,
        models: Option<Fault>,
    ) -> FaultyServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let root = format!("http://{}", listener.local_addr().unwrap());
        let server = FaultyServer {
            root,
            posts: Arc::default(),
            gets: Arc::default(),
        };
        let shared = Arc::new(Script {
            kind,
            text: text.to_string(),
            faults: script,
            models,
            posts: server.posts.clone(),
            gets: server.gets.clone(),
        });
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, shared.clone()));
            }
        });
        server
    }

    /// `kind`'s base URL here (`/v1` for the OpenAI APIs, as theirs).
    pub fn base_url(&self, kind: BackendKind) -> String {
        match kind {
            BackendKind::Anthropic => self.root.clone(),
            _ => format!("{}/v1", self.root),
        }
    }

    /// Model requests (POSTs) received so far.
    pub fn posts(&self) -> usize {
        self.posts.load(Ordering::SeqCst)
    }

    /// `GET`s (the check before the first item) received so far.
    pub fn gets(&self) -> usize {
        self.gets.load(Ordering::SeqCst)
    }
}

struct Script {
    kind: BackendKind,
    text: String,
    faults: Vec<Fault>,
    models: Option<Fault>,
    posts: Arc<AtomicUsize>,
    gets: Arc<AtomicUsize>,
}

/// Reads one request's head and body; `None` when the connection closed.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<String> {
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 8192];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length: usize = head
        .to_ascii_lowercase()
        .lines()
        .find_map(|l| l.strip_prefix("content-length:").map(str::to_string))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let mut chunk = [0u8; 8192];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    buf.drain(..head_end + length);
    Some(head)
}

async fn serve(mut stream: TcpStream, script: Arc<Script>) {
    let mut buf = Vec::new();
    while let Some(head) = read_request(&mut stream, &mut buf).await {
        let fault = if head.starts_with("GET ") {
            script.gets.fetch_add(1, Ordering::SeqCst);
            script.models.clone().unwrap_or_else(|| Fault::Page {
                status: 200,
                content_type: "application/json",
                body: r#"{"object": "list", "data": [{"id": "test-model", "object": "model"}]}"#
                    .to_string(),
            })
        } else {
            let n = script.posts.fetch_add(1, Ordering::SeqCst);
            let faults = &script.faults;
            faults
                .get(n)
                .or(faults.last())
                .cloned()
                .unwrap_or(Fault::Healthy)
        };
        if !answer(&mut stream, &script, fault).await {
            return;
        }
    }
}

/// The stream's events with the usage-carrying ones left out.
fn without_usage(kind: BackendKind, events: Vec<Event>) -> Vec<Event> {
    events
        .into_iter()
        .filter_map(|(name, data)| {
            let mut value: serde_json::Value = match serde_json::from_str(&data) {
                Ok(v) => v,
                Err(_) => return Some((name, data)),
            };
            match kind {
                // The usage chunk has no choices.
                BackendKind::OpenAiChat if value.get("usage").is_some() => return None,
                BackendKind::OpenAiResponses => {
                    if let Some(response) = value.get_mut("response") {
                        response.as_object_mut()?.remove("usage");
                    }
                }
                BackendKind::Anthropic => {
                    value.as_object_mut()?.remove("usage");
                    if let Some(message) = value.get_mut("message") {
                        message.as_object_mut()?.remove("usage");
                    }
                }
                BackendKind::OpenAiChat => {}
            }
            Some((name, value.to_string()))
        })
        .collect()
}

const STREAM_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";

/// Answers one request as `fault` says; false when the connection is done.
async fn answer(stream: &mut TcpStream, script: &Script, fault: Fault) -> bool {
    let events = text_events(script.kind, &script.text, "stop");
    let stream_of = |events: &[Event]| -> String { events.iter().map(event_text).collect() };
    match fault {
        Fault::Healthy => write_close(stream, STREAM_HEAD, &stream_of(&events)).await,
        Fault::NoUsage => {
            let events = without_usage(script.kind, events);
            write_close(stream, STREAM_HEAD, &stream_of(&events)).await
        }
        Fault::AfterEnd => {
            let mut body = stream_of(&events);
            body.push_str("data: {\"garbage\": true}\n\nevent: error\ndata: not json at all\n\n");
            write_close(stream, STREAM_HEAD, &body).await
        }
        Fault::CutAfter(k) => {
            let k = k.min(events.len());
            write_close(stream, STREAM_HEAD, &stream_of(&events[..k])).await
        }
        Fault::StallAfter(k) => {
            let k = k.min(events.len());
            let _ = stream.write_all(STREAM_HEAD.as_bytes()).await;
            let _ = stream.write_all(stream_of(&events[..k]).as_bytes()).await;
            let _ = stream.flush().await;
            hold(stream).await
        }
        Fault::Silent => hold(stream).await,
        Fault::Trickle(every) => {
            if stream.write_all(STREAM_HEAD.as_bytes()).await.is_err() {
                return false;
            }
            for byte in stream_of(&events).bytes() {
                if stream.write_all(&[byte]).await.is_err() || stream.flush().await.is_err() {
                    return false;
                }
                tokio::time::sleep(every).await;
            }
            false
        }
        Fault::Page {
            status,
            content_type,
            body,
        } => {
            let head = format!(
                "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
                reason(status),
                body.len()
            );
            stream.write_all(head.as_bytes()).await.is_ok()
                && stream.write_all(body.as_bytes()).await.is_ok()
        }
        Fault::CutJson => {
            let body = r#"{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assis"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len() * 4
            );
            write_close(stream, &head, body).await
        }
        Fault::HugeEvent(n) => {
            let _ = stream.write_all(STREAM_HEAD.as_bytes()).await;
            let _ = stream.write_all(b"data: \"").await;
            let chunk = vec![b'x'; 64 * 1024];
            let mut sent = 0;
            while sent < n {
                if stream.write_all(&chunk).await.is_err() {
                    return false;
                }
                sent += chunk.len();
            }
            false
        }
    }
}

/// Writes `head` and `body`, then closes the connection.
async fn write_close(stream: &mut TcpStream, head: &str, body: &str) -> bool {
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body.as_bytes()).await;
    let _ = stream.flush().await;
    let _ = stream.shutdown().await;
    false
}

/// Keeps the connection open, sending nothing, until the client leaves.
async fn hold(stream: &mut TcpStream) -> bool {
    let mut sink = [0u8; 1024];
    loop {
        match stream.read(&mut sink).await {
            Ok(0) | Err(_) => return false,
            Ok(_) => {}
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        _ => "Status",
    }
}
