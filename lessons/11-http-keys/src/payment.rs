use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use crate::{NewPayment, PaymentRequest, Stored};

/// A payment, as the API shows it: the effect the idempotency key protects. The handler creates
/// one with [`Payment::create`] and shows it with [`Payment::response`]; neither knows of keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub id: i64,
    pub client_id: String,
    pub amount_cents: i64,
    pub currency: String,
    pub description: Option<String>,
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// A row of `payments`, as both queries below return it.
type Row = (
    i64,
    String,
    i64,
    String,
    Option<String>,
    String,
    DateTime<Utc>,
);

impl Payment {
    /// Creates the payment `request` asks for, on `conn` (inside the caller's transaction, if it
    /// has one): the effect, charged to the client the moment this commits. It adds to the
    /// client's row first (a client seen for the first time gets one), so a client's payments
    /// wait for each other there, and never for another client's.
    pub async fn create(
        conn: &mut PgConnection,
        request: &PaymentRequest,
    ) -> Result<Payment, sqlx::Error> {
        let NewPayment {
            amount_cents,
            currency,
            description,
        } = request.payment();
        sqlx::query(
            "INSERT INTO clients (id, charged_cents) VALUES ($1, $2)
             ON CONFLICT (id) DO UPDATE SET charged_cents = clients.charged_cents + $2",
        )
        .bind(request.client())
        .bind(amount_cents)
        .execute(&mut *conn)
        .await?;
        let row: Row = sqlx::query_as(
            "INSERT INTO payments (client_id, amount_cents, currency, description)
             VALUES ($1, $2, $3, $4)
             RETURNING id, client_id, amount_cents, currency, description, status, created_at",
        )
        .bind(request.client())
        .bind(amount_cents)
        .bind(currency)
        .bind(description)
        .fetch_one(conn)
        .await?;
        Ok(Payment::from(row))
    }

    /// The payment `id` as it is now, if there is one.
    pub async fn find(conn: &mut PgConnection, id: i64) -> Result<Option<Payment>, sqlx::Error> {
        let row: Option<Row> = sqlx::query_as(
            "SELECT id, client_id, amount_cents, currency, description, status, created_at
               FROM payments WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(conn)
        .await?;
        Ok(row.map(Payment::from))
    }

    /// The API's answer to the request that created this payment: 201 and the payment as it is
    /// at this moment, as JSON.
    pub fn response(&self) -> Stored {
        let body = serde_json::json!({
            "id": format!("pay_{}", self.id),
            "object": "payment",
            "amount_cents": self.amount_cents,
            "currency": self.currency,
            "description": self.description,
            "status": self.status,
        });
        Stored {
            status: 201,
            body: body.to_string(),
        }
    }
}

impl From<Row> for Payment {
    fn from(
        (id, client_id, amount_cents, currency, description, status, created_at): Row,
    ) -> Payment {
        Payment {
            id,
            client_id,
            amount_cents,
            currency,
            description,
            status,
            created_at,
        }
    }
}
