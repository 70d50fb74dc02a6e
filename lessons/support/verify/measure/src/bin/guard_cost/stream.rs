//! The three streams of settlement events every strategy is fed, and the partitions lesson 07's
//! consumer reads them from.

/// One delivery of a settlement event: move `payment` out of pending, to `outcome`.
#[derive(Clone, Debug)]
pub struct Event {
    pub id: String,
    pub payment: String,
    pub outcome: &'static str,
    /// The partition the event was published to (by its payment, as a producer keys a Kafka
    /// topic), and its offset there: a redelivery has the offset of the delivery it copies.
    pub partition: i32,
    pub offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Every delivery a different event for a different payment: no guard has anything to stop.
    Distinct,
    /// Half the deliveries are copies, each delivered right after its original, so that a copy
    /// and its original are handled at the same time by two workers.
    HalfDuplicates,
    /// Two different events for each payment, one capturing it and one cancelling it, delivered
    /// back to back: the payment must end in one of the two, with one ledger row.
    Contradicting,
}

impl Stream {
    pub const ALL: [Stream; 3] = [
        Stream::Distinct,
        Stream::HalfDuplicates,
        Stream::Contradicting,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stream::Distinct => "distinct",
            Stream::HalfDuplicates => "half duplicates",
            Stream::Contradicting => "contradicting",
        }
    }

    /// `deliveries` deliveries, in the order workers take them, over `partitions` partitions;
    /// and how many payments they settle (each must end with exactly one ledger row).
    pub fn deliveries(self, deliveries: usize, partitions: usize) -> (Vec<Event>, usize) {
        let payments = match self {
            Stream::Distinct => deliveries,
            Stream::HalfDuplicates | Stream::Contradicting => deliveries / 2,
        };
        let mut next_offset = vec![0i64; partitions];
        let mut events = Vec::with_capacity(deliveries);
        for p in 0..payments {
            let partition = p % partitions;
            let mut publish = |id: String, outcome, redelivery: bool| {
                if !redelivery {
                    next_offset[partition] += 1;
                }
                events.push(Event {
                    id,
                    payment: format!("pay-{p}"),
                    outcome,
                    partition: partition as i32,
                    offset: next_offset[partition] - 1,
                });
            };
            match self {
                Stream::Distinct => publish(format!("evt-{p}"), "captured", false),
                Stream::HalfDuplicates => {
                    publish(format!("evt-{p}"), "captured", false);
                    publish(format!("evt-{p}"), "captured", true);
                }
                Stream::Contradicting => {
                    publish(format!("evt-{p}-capture"), "captured", false);
                    publish(format!("evt-{p}-cancel"), "cancelled", false);
                }
            }
        }
        (events, payments)
    }
}
