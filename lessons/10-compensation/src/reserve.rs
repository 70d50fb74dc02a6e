//! What the inventory service does when it hears `order.created`: the action a release
//! compensates, given. It is not the student's code, but the student's release must work with
//! it, whichever of the two arrives first.

use sqlx::PgPool;

// ANCHOR: reserve
/// Takes `quantity` units of `sku` off the shelf and holds them for `order_id`, in one
/// transaction. The order's key decides: if the order has a row already, whatever its state,
/// this reserves nothing and returns `false`.
pub async fn reserve(
    pool: &PgPool,
    order_id: &str,
    sku: &str,
    quantity: i32,
) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let held = sqlx::query(HOLD)
        .bind(order_id)
        .bind(sku)
        .bind(quantity)
        .execute(&mut *tx)
        .await?;
    if held.rows_affected() == 1 {
        sqlx::query(TAKE_OFF_THE_SHELF)
            .bind(sku)
            .bind(quantity)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(held.rows_affected() == 1)
}

const HOLD: &str = "INSERT INTO reservations (order_id, sku, quantity, status)
                    VALUES ($1, $2, $3, 'held') ON CONFLICT (order_id) DO NOTHING";
const TAKE_OFF_THE_SHELF: &str = "UPDATE stock SET available = available - $2 WHERE sku = $1";
// ANCHOR_END: reserve

/// The same two statements as [`reserve`], for a scripted session that holds them uncommitted:
/// a reservation half-way through its transaction.
pub(crate) fn reserving(order_id: &str, sku: &str, quantity: i32) -> String {
    let literal = |text: &str| format!("'{}'", text.replace('\'', "''"));
    let quantity = quantity.to_string();
    let hold = (HOLD.replace("$1", &literal(order_id)))
        .replace("$2", &literal(sku))
        .replace("$3", &quantity);
    let take = (TAKE_OFF_THE_SHELF.replace("$1", &literal(sku))).replace("$2", &quantity);
    let one_line = |sql: String| sql.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("BEGIN; {}; {}", one_line(hold), one_line(take))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_scripted_reservation_runs_the_given_statements() {
        assert_eq!(
            super::reserving("ord-1", "sku-1", 2),
            "BEGIN; INSERT INTO reservations (order_id, sku, quantity, status) VALUES ('ord-1', \
             'sku-1', 2, 'held') ON CONFLICT (order_id) DO NOTHING; UPDATE stock SET available \
             = available - 2 WHERE sku = 'sku-1'"
        );
    }
}
