//! Topics and groups left behind on a Kafka cluster of the student's (`KAFKA_BOOTSTRAP_SERVERS`).
//! The kit's own broker takes its tests' topics with it when it goes; a cluster of the
//! student's keeps them. So every name a test makes carries the machine and the process that
//! made it, and the first test of the next process on the same machine deletes the topics and
//! groups of this machine's processes that are gone, as the kit drops test databases left on
//! a `DATABASE_URL` server.

use std::io::Write;

use kit::KitError;
use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};

use crate::{REQUEST_TIMEOUT, client, failed};

/// The cluster id a Tansu broker reports unless told otherwise (its `--cluster-id`).
const TANSU_DEFAULT_ID: &str = "tansu_cluster";

/// `wb-<machine>-`: every name a test makes starts so.
fn prefix() -> String {
    format!("wb-{}-", kit::machine_tag())
}

/// `wb-<machine>-<pid>-<n>-<what>`.
pub(crate) fn name(n: u32, what: &str) -> String {
    format!("{}{}-{n}-{what}", prefix(), std::process::id())
}

/// The pid in a name of the form above, made on this machine.
fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(&prefix())?;
    let (pid, rest) = rest.split_once('-')?;
    let (n, _what) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| pid.parse().ok())?
}

fn left_behind(name: &str) -> bool {
    owner_pid(name).is_some_and(kit::process_is_gone)
}

/// Deletes the topics and consumer groups that test processes of this machine, now gone, left
/// on the cluster at `bootstrap`; says so on stderr, and returns their names.
pub async fn delete_leftovers(bootstrap: &str) -> Result<Vec<String>, KitError> {
    let reader: BaseConsumer = client(bootstrap).create().map_err(failed(
        "make a client to list the cluster's topics and groups",
    ))?;
    let (topics, groups) = tokio::task::spawn_blocking(move || {
        // Tansu 0.6.0 answers a DeleteTopics of one topic by dropping every topic it has
        // (measured: after deleting t1, t2 was unknown too). On a Tansu, nothing is deleted.
        if reader.client().fetch_cluster_id(REQUEST_TIMEOUT).as_deref() == Some(TANSU_DEFAULT_ID) {
            return Ok((Vec::new(), Vec::new()));
        }
        let metadata = reader.fetch_metadata(None, REQUEST_TIMEOUT)?;
        let topics: Vec<String> = (metadata.topics().iter())
            .map(|topic| topic.name().to_string())
            .filter(|name| left_behind(name))
            .collect();
        // Groups only where the cluster lists them (Tansu 0.6.0 does not answer ListGroups);
        // elsewhere, an empty group's offsets expire on their own (Kafka's
        // offsets.retention.minutes, seven days by default).
        let groups: Vec<String> = match reader.fetch_group_list(None, REQUEST_TIMEOUT) {
            Ok(list) => (list.groups().iter())
                .map(|group| group.name().to_string())
                .filter(|name| left_behind(name))
                .collect(),
            Err(_) => Vec::new(),
        };
        Ok::<_, rdkafka::error::KafkaError>((topics, groups))
    })
    .await
    .map_err(failed("wait for the cluster's topics and groups"))?
    .map_err(failed("list the cluster's topics and groups"))?;
    if topics.is_empty() && groups.is_empty() {
        return Ok(Vec::new());
    }
    let admin: AdminClient<DefaultClientContext> = client(bootstrap)
        .create()
        .map_err(failed("make an admin client"))?;
    let options = AdminOptions::new().operation_timeout(Some(REQUEST_TIMEOUT));
    let mut deleted = Vec::new();
    if !topics.is_empty() {
        let names: Vec<&str> = topics.iter().map(String::as_str).collect();
        let results = (admin.delete_topics(&names, &options).await)
            .map_err(failed("delete topics left behind"))?;
        deleted.extend(results.into_iter().filter_map(Result::ok));
    }
    if !groups.is_empty() {
        let names: Vec<&str> = groups.iter().map(String::as_str).collect();
        let results = (admin.delete_groups(&names, &options).await)
            .map_err(failed("delete consumer groups left behind"))?;
        deleted.extend(results.into_iter().filter_map(Result::ok));
    }
    if !deleted.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "workbook: deleted {} topic(s) and group(s) that test processes, killed before they \
             could clean up, left on the Kafka cluster at {bootstrap}: {}",
            deleted.len(),
            deleted.join(", ")
        );
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_the_exact_form_have_an_owner() {
        let ours = name(7, "verdicts");
        assert_eq!(owner_pid(&ours), Some(std::process::id() as i32));
        assert_eq!(owner_pid(&format!("{}12-x-verdicts", prefix())), None);
        assert_eq!(owner_pid("wb-123-4-verdicts"), None);
        assert_eq!(owner_pid("orders"), None);
    }

    #[test]
    fn a_name_is_left_behind_once_its_process_is_gone() {
        let mut ended = std::process::Command::new("true")
            .spawn()
            .expect("true runs");
        let gone = ended.id();
        ended.wait().expect("true ends");
        assert!(left_behind(&format!("{}{gone}-1-verdicts", prefix())));
        assert!(!left_behind(&name(1, "verdicts")));
        // Another machine's: never judged by this machine's processes.
        assert!(
            !left_behind(&format!("wb-000000-{gone}-1-verdicts")) || kit::machine_tag() == "000000"
        );
    }
}
