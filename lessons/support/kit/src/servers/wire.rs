//! The PostgreSQL wire protocol, as far as the relay reads it: whole messages as they come,
//! and what the few it looks into say (a statement's text and parameters, a command's tag, an
//! error's SQLSTATE, the transaction status). Everything is forwarded byte for byte; this only
//! reads.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};

/// One message of the protocol, as it came: its type byte (none for the startup packet), its
/// length and its body.
pub(crate) struct Message {
    pub(crate) raw: Vec<u8>,
    typed: bool,
}

impl Message {
    pub(crate) fn kind(&self) -> Option<u8> {
        self.typed.then(|| self.raw[0])
    }

    pub(crate) fn body(&self) -> &[u8] {
        &self.raw[if self.typed { 5 } else { 4 }..]
    }

    /// The first string of the body: a query's text, a command tag.
    pub(crate) fn first_string(&self) -> &str {
        let body = self.body();
        let end = body.iter().position(|&b| b == 0).unwrap_or(body.len());
        std::str::from_utf8(&body[..end]).unwrap_or("")
    }

    /// A query ('Q') or a statement to parse ('P': its name, then its text) that commits: the
    /// worker ends its transaction.
    pub(crate) fn is_commit(&self) -> bool {
        let text = match self.kind() {
            Some(b'Q') => self.first_string(),
            Some(b'P') => {
                let body = self.body();
                let name_end = body.iter().position(|&b| b == 0).unwrap_or(body.len());
                let rest = body.get(name_end + 1..).unwrap_or(&[]);
                let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
                std::str::from_utf8(&rest[..end]).unwrap_or("")
            }
            _ => return false,
        };
        let statement = text.trim().trim_end_matches(';').trim();
        [
            "COMMIT",
            "END",
            "COMMIT TRANSACTION",
            "COMMIT WORK",
            "END TRANSACTION",
        ]
        .iter()
        .any(|commit| statement.eq_ignore_ascii_case(commit))
    }

    /// The server's "command complete" ('C') of a COMMIT that committed (one that ends a failed
    /// transaction answers ROLLBACK).
    pub(crate) fn completes_a_commit(&self) -> bool {
        self.kind() == Some(b'C') && self.first_string() == "COMMIT"
    }

    /// The server's "command complete" ('C') for a statement that commits or may have written:
    /// its tag is the statement's command.
    pub(crate) fn completes_a_write(&self) -> bool {
        if self.kind() != Some(b'C') {
            return false;
        }
        let command = self.first_string().split(' ').next().unwrap_or("");
        ["COMMIT", "INSERT", "UPDATE", "DELETE", "MERGE", "COPY"].contains(&command)
    }

    /// For "ready for query" ('Z'), the transaction status it reports: idle ('I'), in a
    /// transaction ('T'), or in a failed one ('E').
    pub(crate) fn ready_for_query(&self) -> Option<u8> {
        (self.kind() == Some(b'Z')).then(|| self.body().first().copied().unwrap_or(0))
    }
}

/// A body read front to back: strings end in a zero byte, numbers are big-endian.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn string(&mut self) -> Option<&'a str> {
        let end = self.0.iter().position(|&b| b == 0)?;
        let (text, rest) = (&self.0[..end], &self.0[end + 1..]);
        self.0 = rest;
        std::str::from_utf8(text).ok()
    }

    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let (taken, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(taken)
    }

    fn i16(&mut self) -> Option<i16> {
        Some(i16::from_be_bytes(self.bytes(2)?.try_into().ok()?))
    }

    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_be_bytes(self.bytes(4)?.try_into().ok()?))
    }
}

/// A statement to prepare ('P'): its name (empty for the unnamed one), its text, and the type
/// (an OID, 0 for "the server infers it") of each parameter the client declared.
pub(crate) struct Parse {
    pub(crate) name: String,
    pub(crate) sql: String,
    pub(crate) types: Vec<u32>,
}

/// Parameters bound to a prepared statement ('B'), making a portal: each parameter's bytes
/// (`None` for NULL), and whether each is in binary.
pub(crate) struct Bind {
    pub(crate) portal: String,
    pub(crate) statement: String,
    pub(crate) values: Vec<(bool, Option<Vec<u8>>)>,
}

impl Message {
    /// A 'P' message, read.
    pub(crate) fn parse(&self) -> Option<Parse> {
        if self.kind() != Some(b'P') {
            return None;
        }
        let mut body = Reader(self.body());
        let (name, sql) = (body.string()?.to_string(), body.string()?.to_string());
        let count = usize::try_from(body.i16()?).ok()?;
        let types = (0..count)
            .map(|_| body.i32().map(|oid| oid as u32))
            .collect::<Option<_>>()?;
        Some(Parse { name, sql, types })
    }

    /// A 'B' message, read. Format codes: none means all text, one applies to every parameter.
    pub(crate) fn bind(&self) -> Option<Bind> {
        if self.kind() != Some(b'B') {
            return None;
        }
        let mut body = Reader(self.body());
        let (portal, statement) = (body.string()?.to_string(), body.string()?.to_string());
        let formats: Vec<i16> = (0..body.i16()?)
            .map(|_| body.i16())
            .collect::<Option<_>>()?;
        let count = usize::try_from(body.i16()?).ok()?;
        let mut values = Vec::with_capacity(count);
        for i in 0..count {
            let binary = match formats.len() {
                0 => false,
                1 => formats[0] == 1,
                _ => formats.get(i).copied() == Some(1),
            };
            let value = match body.i32()? {
                -1 => None,
                length => Some(body.bytes(usize::try_from(length).ok()?)?.to_vec()),
            };
            values.push((binary, value));
        }
        Some(Bind {
            portal,
            statement,
            values,
        })
    }

    /// The portal an 'E' (execute) message runs.
    pub(crate) fn execute(&self) -> Option<&str> {
        (self.kind() == Some(b'E')).then(|| self.first_string())
    }

    /// The SQLSTATE of the server's error ('E' from the server): its 'C' field.
    pub(crate) fn sqlstate(&self) -> Option<String> {
        if self.kind() != Some(b'E') {
            return None;
        }
        let mut body = Reader(self.body());
        loop {
            let field = *body.bytes(1)?.first()?;
            if field == 0 {
                return None;
            }
            let value = body.string()?;
            if field == b'C' {
                return Some(value.to_string());
            }
        }
    }
}

/// How a trace shows one parameter of type `oid` (0: not declared): a number or a boolean as
/// it is, text in single quotes, anything else by its size.
pub(crate) fn shown_parameter(oid: u32, binary: bool, value: Option<&[u8]>) -> String {
    let Some(value) = value else {
        return "NULL".into();
    };
    let quoted = |text: &str| format!("'{}'", text.replace('\'', "''"));
    if !binary {
        let text = String::from_utf8_lossy(value);
        return match oid {
            16 | 20 | 21 | 23 | 700 | 701 | 1700 => text.into_owned(),
            _ => quoted(&text),
        };
    }
    let int = |n: usize| value.len() == n;
    match oid {
        16 if int(1) => (value[0] != 0).to_string(),
        21 if int(2) => i16::from_be_bytes([value[0], value[1]]).to_string(),
        23 if int(4) => i32::from_be_bytes(value.try_into().unwrap_or_default()).to_string(),
        20 if int(8) => i64::from_be_bytes(value.try_into().unwrap_or_default()).to_string(),
        701 if int(8) => f64::from_be_bytes(value.try_into().unwrap_or_default()).to_string(),
        // text, varchar, name, json, unknown: the bytes are the text
        25 | 1043 | 19 | 114 | 705 => quoted(&String::from_utf8_lossy(value)),
        // jsonb: a version byte, then the text
        3802 if value.first() == Some(&1) => quoted(&String::from_utf8_lossy(&value[1..])),
        2950 if int(16) => quoted(&uuid(value)),
        1184 | 1114 if int(8) => {
            let micros = i64::from_be_bytes(value.try_into().unwrap_or_default());
            quoted(&timestamp(micros))
        }
        _ => format!("<{} bytes>", value.len()),
    }
}

fn uuid(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// A timestamp as PostgreSQL's binary form has it (microseconds since 2000-01-01 UTC), in UTC.
fn timestamp(micros: i64) -> String {
    let epoch = chrono::DateTime::from_timestamp(946_684_800, 0).unwrap_or_default();
    let at = epoch + chrono::TimeDelta::microseconds(micros);
    at.format("%Y-%m-%d %H:%M:%S%.f+00").to_string()
}

/// Reads one whole message, or `None` where the stream ends between messages.
pub(crate) async fn read_message(
    from: &mut (impl AsyncRead + Unpin),
    typed: bool,
) -> io::Result<Option<Message>> {
    let mut raw = Vec::with_capacity(64);
    if typed {
        let mut kind = [0u8; 1];
        if from.read(&mut kind).await? == 0 {
            return Ok(None);
        }
        raw.push(kind[0]);
    }
    let mut length = [0u8; 4];
    match from.read_exact(&mut length).await {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && !typed => return Ok(None),
        Err(e) => return Err(e),
    }
    raw.extend_from_slice(&length);
    let length = u32::from_be_bytes(length) as usize;
    if length < 4 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a message shorter than its length",
        ));
    }
    let start = raw.len();
    raw.resize(start + length - 4, 0);
    from.read_exact(&mut raw[start..]).await?;
    Ok(Some(Message { raw, typed }))
}
