//! The first pass of `clean --dedup=prefix`: a sink that reads what the workers release and
//! writes nothing, drafting the [`Plan`] the writing pass applies.

use std::sync::Arc;

use super::dedup::{Draft, Plan};
use super::{Clean, CleanChunk, Fate};
use crate::error::Error;
use crate::jobs::run::Sink;
use crate::pipeline::Spares;
use crate::pipeline::stats::Stats;

/// The first pass's sink.
pub struct Survey {
    draft: Draft,
    spares: Arc<Spares<CleanChunk>>,
}

impl Survey {
    /// The first pass of `job` (made by [`Clean::survey`]).
    pub fn new(job: &Clean) -> Result<Survey, Error> {
        Ok(Survey { draft: Draft::new()?, spares: job.spares.clone() })
    }

    /// The plan, once every input was read: the mainlines read are sorted and walked; fails
    /// with [`Error::Interrupted`] once `requested` says so.
    pub fn into_plan(self, requested: &dyn Fn() -> bool) -> Result<Plan, Error> {
        self.draft.finish(requested)
    }
}

impl Sink<CleanChunk> for Survey {
    fn begin_input(&mut self, input: &str) -> Result<(), Error> {
        self.draft.begin_input(input);
        Ok(())
    }

    fn release(&mut self, chunk: CleanChunk, _: &mut Stats) -> Result<(), Error> {
        for g in &chunk.games {
            let candidate = matches!(g.fate, Fate::Written | Fate::Broken { .. });
            let game =
                g.dedup.as_ref().filter(|_| candidate).map(|id| (id, &chunk.mainlines[g.mainline.clone()]));
            self.draft.survey(game)?;
        }
        self.spares.give(chunk);
        Ok(())
    }
}
