//! The development database keeps what it holds: stopped and started again, in a folder of its
//! own, it still has the table made before the stop, at the same URL.

use std::str::FromStr;

use kit::dev_database::{DevDatabase, DevStatus};

fn query(url: &str, sql: &str) -> Result<Vec<tokio_postgres::SimpleQueryMessage>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config = tokio_postgres::Config::from_str(url).map_err(|e| e.to_string())?;
        let (client, connection) = config
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| kit::describe_postgres(&e))?;
        tokio::spawn(connection);
        client
            .simple_query(sql)
            .await
            .map_err(|e| kit::describe_postgres(&e))
    })
}

#[test]
fn a_stopped_database_starts_again_with_its_data() {
    // Under the temporary directory, not the target folder: the server may run as `postgres`,
    // which must reach the folder.
    let folder = tempfile::tempdir().unwrap();
    let db = DevDatabase::local(folder.path());
    let _stop = StopOnDrop(&db);
    assert!(matches!(
        db.status().unwrap(),
        DevStatus::Stopped { data: None }
    ));

    let first = db.start().unwrap();
    query(
        &first.url,
        "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)",
    )
    .unwrap();
    assert_eq!(
        db.start().unwrap().url,
        first.url,
        "a second start finds the first"
    );
    assert!(db.stop().unwrap().is_some());
    assert!(matches!(
        db.status().unwrap(),
        DevStatus::Stopped { data: Some(_) }
    ));
    assert!(
        db.running()
            .unwrap_err()
            .to_string()
            .contains("cargo workbook db start")
    );

    let again = db.start().unwrap();
    assert_eq!(again.url, first.url);
    let rows = query(&again.url, "SELECT n FROM kept").unwrap();
    let kept = rows.iter().find_map(|message| match message {
        tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
        _ => None,
    });
    assert_eq!(kept.as_deref(), Some("7"));
    assert!(db.stop().unwrap().is_some());
    assert!(
        db.stop().unwrap().is_none(),
        "stopping a stopped database is not an error"
    );
}

/// A failed assertion must not leave a server running in a folder that is being deleted.
struct StopOnDrop<'a>(&'a DevDatabase);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.stop();
    }
}
