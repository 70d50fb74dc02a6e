//! The API's errors, every one of them an RFC 9457 problem (`application/problem+json`): a
//! client, or a student with curl, reads what went wrong the same way whatever refused it.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// An RFC 9457 problem: `type` names the kind of problem (a URI reference, relative to the
/// API), `title` says it for people, `detail` says what was wrong with this request.
pub(crate) struct Problem {
    status: StatusCode,
    slug: &'static str,
    title: &'static str,
    detail: String,
    /// An extension member of the problem, for a failed handler.
    sqlstate: Option<String>,
    /// Response headers that tell the client what to do next (`Retry-After`, `Accept`).
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl Problem {
    pub(crate) fn new(
        status: StatusCode,
        slug: &'static str,
        title: &'static str,
        detail: String,
    ) -> Self {
        Problem {
            status,
            slug,
            title,
            detail,
            sqlstate: None,
            headers: Vec::new(),
        }
    }

    /// The same problem, with the SQLSTATE of what the database refused.
    pub(crate) fn with_sqlstate(self, sqlstate: Option<String>) -> Self {
        Problem { sqlstate, ..self }
    }

    /// The same problem, sent with `name: value`.
    pub(crate) fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    pub(crate) fn unauthenticated() -> Self {
        Problem::new(
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
            "No client is authenticated",
            "send Authorization: Bearer <your client id>".into(),
        )
        .with_header(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut body = serde_json::json!({
            "type": format!("/problems/{}", self.slug),
            "title": self.title,
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        if let Some(code) = self.sqlstate {
            body["sqlstate"] = code.into();
        }
        let mut response = (self.status, body.to_string()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        for (name, value) in self.headers {
            headers.insert(name, value);
        }
        response
    }
}
