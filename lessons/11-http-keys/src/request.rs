use serde::{Deserialize, Serialize};

/// The longest idempotency key the API takes, in characters (Stripe's limit; Adyen's is 64).
pub const MAX_KEY_CHARS: usize = 255;

/// A `POST /payments` that passed the API's checks (the server's, in `server.rs`): a client
/// authenticated, an idempotency key of the right form, a body that parsed. The handler gets
/// nothing else, and never a request the API should have refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRequest {
    client: String,
    key: String,
    payment: NewPayment,
}

/// The body of `POST /payments`: what the client asks to be paid.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NewPayment {
    pub amount_cents: i64,
    pub currency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What the handler answers, for the API to put into HTTP (`server.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// This request created the payment: the response, as stored with it.
    Created(Stored),
    /// The key was used before, for this same request: the response stored then, unchanged.
    /// The API sends it marked `Idempotent-Replayed: true`.
    Replayed(Stored),
    /// The key was used before for a different request: 422, and nothing done.
    KeyReused,
    /// The key's first request has not finished, and this one stopped waiting for it: 409,
    /// with `Retry-After`, and nothing done.
    InFlight,
    /// The work could not be finished now, and its outcome is not known yet (a provider that
    /// failed or did not answer, lesson 12): 503, with `Retry-After`. The same request under
    /// the same key, after that many seconds, finishes it.
    Unavailable { retry_after_seconds: u32 },
}

/// A response as the API stores it with the effect, to send again, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub status: u16,
    pub body: String,
}

impl PaymentRequest {
    /// `key` as it travels in the header (checked by [`check_key`]).
    pub fn new(client: impl Into<String>, key: impl Into<String>, payment: NewPayment) -> Self {
        PaymentRequest {
            client: client.into(),
            key: key.into(),
            payment,
        }
    }

    /// The client the bearer token names. A key is the client's own: another client may use
    /// the same string for a request of its own.
    pub fn client(&self) -> &str {
        &self.client
    }

    /// The `Idempotency-Key` the client sent.
    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn payment(&self) -> &NewPayment {
        &self.payment
    }

    /// What makes two requests "the same request": the method, the path and the body, with
    /// the body's fields in one order and no whitespace, so that a client that serialises its
    /// JSON differently on a retry still sends the same request. A table that keeps many keys
    /// would keep a hash of this; the workbook keeps the text, so that psql shows it.
    pub fn fingerprint(&self) -> String {
        let body = serde_json::to_string(&self.payment).expect("a payment serialises");
        format!("POST /payments {body}")
    }
}

/// Why an `Idempotency-Key` header is refused, if it is. The IETF draft sends the key as a
/// structured-field string (`"…"`), and Stripe's clients send it bare: both are taken. What is
/// inside is 1 to 255 visible ASCII characters (no space, no control character).
pub fn check_key(header: &str) -> Result<&str, String> {
    let key = match header.strip_prefix('"') {
        Some(quoted) => quoted
            .strip_suffix('"')
            .ok_or("it opens a quoted string and does not close it")?,
        None => header,
    };
    if key.is_empty() {
        return Err("it is empty".into());
    }
    if key.len() > MAX_KEY_CHARS {
        return Err(format!(
            "it is {} characters long; the API takes at most {MAX_KEY_CHARS}",
            key.len()
        ));
    }
    if let Some(c) = key.chars().find(|c| !c.is_ascii_graphic() || *c == '"') {
        return Err(format!(
            "it holds {c:?}; a key is visible ASCII characters only (a UUID is a good key)"
        ));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_ignores_field_order_and_whitespace() {
        let a: NewPayment =
            serde_json::from_str(r#"{"amount_cents": 1500, "currency": "eur"}"#).unwrap();
        let b: NewPayment =
            serde_json::from_str(r#"{"currency":"eur","amount_cents":1500}"#).unwrap();
        let (a, b) = (
            PaymentRequest::new("acme", "k-1", a),
            PaymentRequest::new("acme", "k-1", b),
        );
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(
            a.fingerprint(),
            r#"POST /payments {"amount_cents":1500,"currency":"eur"}"#
        );
    }

    #[test]
    fn keys_are_visible_ascii_quoted_or_bare() {
        assert_eq!(check_key("k-1"), Ok("k-1"));
        assert_eq!(check_key("\"k-1\""), Ok("k-1"));
        assert_eq!(check_key(&"k".repeat(255)).map(str::len), Ok(255));
        for (bad, why) in [
            ("", "empty"),
            ("\"\"", "empty"),
            ("\"k-1", "does not close"),
            ("k 1", "' '"),
            ("k\u{e9}", "'é'"),
        ] {
            let said = check_key(bad).unwrap_err();
            assert!(said.contains(why), "{bad:?}: {said}");
        }
        assert!(check_key(&"k".repeat(256)).unwrap_err().contains("256"));
    }
}
