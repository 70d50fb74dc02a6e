//! Our books' charges, as lesson 11's API shows them at `GET /payments/{id}`: a 201's
//! `Location` names `/payments/pay_17`, and lesson 12 keeps that payment as row 17 of `charges`,
//! not in lesson 11's `payments`.

use sqlx::PgPool;

/// `client`'s charge `number`, in the form a 201 shows it (the solution's `record` writes the
/// same fields), or `None` if `client` has no such charge.
pub fn show_charge<'a>(pool: &'a PgPool, client: &'a str, number: i64) -> http_keys::Showing<'a> {
    Box::pin(async move {
        let charge: Option<(i64, String, String)> = sqlx::query_as(
            "SELECT amount_cents, currency, provider_charge_id FROM charges
              WHERE id = $1 AND client_id = $2",
        )
        .bind(number)
        .bind(client)
        .fetch_optional(pool)
        .await?;
        Ok(charge.map(|(amount_cents, currency, provider_charge)| {
            serde_json::json!({
                "id": format!("pay_{number}"),
                "object": "payment",
                "amount_cents": amount_cents,
                "currency": currency,
                "provider_charge": provider_charge,
            })
            .to_string()
        }))
    })
}

#[cfg(test)]
mod tests {
    //! `GET /payments/{id}` in lesson 12, over HTTP, against charges written straight into our
    //! books: a 201's `Location` names a row of `charges`, which lesson 11's `payments` is not.

    use http_keys::server::Server;
    use http_keys::{PaymentRequest, Reply};
    use sqlx::PgPool;

    async fn get(url: &str, client: &str) -> (u16, String) {
        let response = (reqwest::Client::new().get(url))
            .header("authorization", format!("Bearer {client}"))
            .send()
            .await
            .expect("an answer");
        let status = response.status().as_u16();
        (status, response.text().await.expect("a body"))
    }

    #[tokio::test]
    async fn a_charge_in_our_books_is_shown_at_its_payments_uri_to_its_client_only() {
        let schema = kit::Schema::from_dirs([crate::BASE_MIGRATIONS]);
        let db = kit::TestDatabase::create(&schema).await.unwrap();
        let pool = db.pool(2).await.unwrap();
        sqlx::query(
            "INSERT INTO charges (client_id, amount_cents, currency, provider_charge_id)
             VALUES ('acme', 1500, 'eur', 'ch_1')",
        )
        .execute(&pool)
        .await
        .unwrap();
        let no_handler = |_: PgPool, _: PaymentRequest| async {
            Err::<Reply, _>(sqlx::Error::Protocol("only POST calls the handler".into()))
        };
        let server = Server::start_on("127.0.0.1:0", pool, no_handler, super::show_charge)
            .await
            .unwrap();
        let url = format!("{}/payments/pay_1", server.url());
        let (status, body) = get(&url, "acme").await;
        let shown: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        assert_eq!(
            (status, shown["provider_charge"].as_str()),
            (200, Some("ch_1")),
            "GET /payments/pay_1 must show acme's charge 1 from `charges`; got {status} {body}"
        );
        let (status, body) = get(&url, "globex").await;
        assert_eq!(
            status, 404,
            "acme's charge is not globex's to see; got {body}"
        );
        server.stop().await;
    }
}
