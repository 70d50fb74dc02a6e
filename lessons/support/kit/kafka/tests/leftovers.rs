//! The sweep of a student's Kafka cluster, against the kit's broker, a Tansu: Tansu 0.6.0 drops
//! every topic when asked to delete one, so on a Tansu the sweep must delete nothing, neither a
//! leftover nor a topic in use. (Which names count as leftovers is unit-tested in
//! src/leftovers.rs.)

use std::time::Duration;

use kit_kafka::rdkafka::ClientConfig;
use kit_kafka::rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use kit_kafka::rdkafka::client::DefaultClientContext;
use kit_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
use kit_kafka::{TestTopic, leftovers};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_tansu_the_sweep_deletes_nothing() {
    let bootstrap = kit::broker().expect("a broker").bootstrap.clone();
    let mut ended = std::process::Command::new("true")
        .spawn()
        .expect("true runs");
    let gone = ended.id();
    ended.wait().expect("true ends");
    let leftover = format!("wb-{}-{gone}-1-verdicts", kit::machine_tag());
    let in_use = TestTopic::create("in-use", 1)
        .await
        .expect("a topic of ours");
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", &bootstrap);
    let admin: AdminClient<DefaultClientContext> = config.create().expect("a client");
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(20)));
    let topic = NewTopic::new(&leftover, 1, TopicReplication::Fixed(1));
    let created = (admin.create_topics([&topic], &options).await).expect("the leftover topic");
    assert!(created.iter().all(Result::is_ok), "{created:?}");

    let deleted = leftovers::delete_leftovers(&bootstrap)
        .await
        .expect("the sweep");

    assert_eq!(deleted, Vec::<String>::new());
    let reader: BaseConsumer = config.create().expect("a client");
    let names = tokio::task::spawn_blocking(move || {
        let metadata = (reader.fetch_metadata(None, Duration::from_secs(20))).expect("metadata");
        let names: Vec<String> = (metadata.topics().iter())
            .map(|topic| topic.name().to_string())
            .collect();
        names
    })
    .await
    .expect("the metadata");
    assert!(names.contains(&in_use.name), "{names:?}");
    assert!(names.contains(&leftover), "{names:?}");
}
