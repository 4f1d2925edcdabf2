//! Which shard a process is: `--shard I/N` as given, or `--shard auto` from the index variables
//! of the scheduler that started it (Slurm job arrays, Kubernetes Indexed Jobs, AWS Batch and
//! Google Batch array jobs).

use std::fmt;

/// Shard `index` of `count` (0-based, `index < count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    /// Which shard, from 0.
    pub index: u64,
    /// How many shards the run has.
    pub count: u64,
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The variables `--shard auto` reads, in the order it looks for them.
pub const LOOKED_FOR: &str = "SLURM_ARRAY_TASK_ID (Slurm), JOB_COMPLETION_INDEX (Kubernetes), \
AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch), BATCH_TASK_INDEX (Google Batch)";

fn number(name: &str, value: &str) -> Result<u64, String> {
    value.trim().parse().map_err(|_| format!("{name}={value:?} is not a whole number"))
}

impl Spec {
    /// A shard, checked: `count` at least 1 and `index` below it.
    pub fn new(index: u64, count: u64) -> Result<Spec, String> {
        if count == 0 {
            return Err("a run has at least 1 shard, not 0".into());
        }
        if index >= count {
            return Err(format!("shard {index} of {count}: shards are numbered 0 to {}", count - 1));
        }
        Ok(Spec { index, count })
    }

    /// Reads `--shard` (`I/N` or `auto`), with `--shards N` when given (the count Kubernetes does
    /// not expose); `env` reads a variable (the process environment, or a test's).
    ///
    /// ```
    /// use pgnkit::shard::Spec;
    /// let env = |_: &str| None;
    /// assert_eq!(Spec::parse("2/7", None, &env), Ok(Spec { index: 2, count: 7 }));
    /// assert!(Spec::parse("7/7", None, &env).is_err());
    /// assert!(Spec::parse("auto", None, &env).unwrap_err().contains("SLURM_ARRAY_TASK_ID"));
    /// ```
    pub fn parse(
        text: &str,
        shards: Option<u64>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Spec, String> {
        let spec = if text == "auto" {
            Spec::auto(shards, env)?
        } else {
            let (i, n) = text
                .split_once('/')
                .ok_or_else(|| format!("--shard {text:?}: write I/N (shard I of N, from 0), or auto"))?;
            let parse = |s: &str| {
                s.trim().parse::<u64>().map_err(|_| format!("--shard {text:?}: {s:?} is not a whole number"))
            };
            Spec::new(parse(i)?, parse(n)?).map_err(|e| format!("--shard {text}: {e}"))?
        };
        match shards {
            Some(n) if n != spec.count => Err(format!(
                "--shards {n} does not match the {} shards of --shard {text} ({spec})",
                spec.count
            )),
            _ => Ok(spec),
        }
    }

    /// The shard the scheduler says this process is.
    fn auto(shards: Option<u64>, env: &dyn Fn(&str) -> Option<String>) -> Result<Spec, String> {
        let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let need = |name: &str| get(name).ok_or_else(|| format!("--shard auto: {name} is not set"));
        let at = |name: &str| -> Result<u64, String> { number(name, &need(name)?) };
        let shards_or = |name: &str| -> Result<u64, String> {
            match (shards, get("PGNKIT_SHARDS")) {
                (Some(n), _) => Ok(n),
                (None, Some(v)) => number("PGNKIT_SHARDS", &v),
                (None, None) => Err(format!(
                    "--shard auto: {name} is set but not the number of shards: give --shards N or PGNKIT_SHARDS"
                )),
            }
        };
        let checked = |index: u64, count: u64, engine: &str| {
            Spec::new(index, count).map_err(|e| format!("--shard auto ({engine}): {e}"))
        };
        if get("SLURM_ARRAY_TASK_ID").is_some() {
            let id = at("SLURM_ARRAY_TASK_ID")?;
            let min = get("SLURM_ARRAY_TASK_MIN").map_or(Ok(0), |v| number("SLURM_ARRAY_TASK_MIN", &v))?;
            let step = get("SLURM_ARRAY_TASK_STEP").map_or(Ok(1), |v| number("SLURM_ARRAY_TASK_STEP", &v))?;
            let count = at("SLURM_ARRAY_TASK_COUNT")?;
            let given = match shards.is_some() || get("PGNKIT_SHARDS").is_some() {
                true => Some(shards_or("SLURM_ARRAY_TASK_ID")?),
                false => None,
            };
            // An array of some of a run's shards submitted again (`--array=3,7`, `--array=5`) has
            // fewer tasks than the run's count: then the task ID is the shard.
            if let Some(n) = given
                && n != count
            {
                return checked(id, n, "Slurm");
            }
            let again =
                "to run some shards of a run again, give the run's count: --shards N or PGNKIT_SHARDS=N";
            if id < min || step == 0 || (id - min) % step != 0 || (id - min) / step >= count {
                return Err(format!(
                    "--shard auto (Slurm): task {id} is not one of a regular array of {count} tasks \
                     (MIN {min}, STEP {step}) such as --array=0-{}; {again}",
                    count.saturating_sub(1)
                ));
            }
            // `sbatch --array=K` alone with no count is Slurm's shard 0 of 1, the whole input: only
            // K = 0 or 1 can mean a run of one task.
            if count == 1 && given.is_none() && id > 1 {
                return Err(format!(
                    "--shard auto (Slurm): a one-task array numbered {id} would read the whole input; \
                     {again} (or scontrol requeue the run's own task)"
                ));
            }
            return checked((id - min) / step, count, "Slurm");
        }
        if get("JOB_COMPLETION_INDEX").is_some() {
            let index = at("JOB_COMPLETION_INDEX")?;
            return checked(index, shards_or("JOB_COMPLETION_INDEX")?, "Kubernetes");
        }
        if get("AWS_BATCH_JOB_ARRAY_INDEX").is_some() {
            let index = at("AWS_BATCH_JOB_ARRAY_INDEX")?;
            return checked(index, at("AWS_BATCH_JOB_ARRAY_SIZE")?, "AWS Batch");
        }
        if get("BATCH_TASK_INDEX").is_some() {
            let index = at("BATCH_TASK_INDEX")?;
            return checked(index, at("BATCH_TASK_COUNT")?, "Google Batch");
        }
        Err(format!("--shard auto: no scheduler's index is set (looked for {LOOKED_FOR}); give --shard I/N"))
    }

    /// What `--shard auto` read that is likely a mistake, though it runs: a count (`--shards`,
    /// `PGNKIT_SHARDS`) that a Batch array's own count overrides, or one that makes a whole Slurm
    /// array (`--array=0-K` or `1-K`) some shards of another run, as a `PGNKIT_SHARDS` left
    /// exported from a rerun does. `None` when nothing is.
    pub fn warning(shards: Option<u64>, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        let get = |name: &str| env(name).and_then(|v| v.trim().parse::<u64>().ok());
        let (given, from) = match (shards, get("PGNKIT_SHARDS")) {
            (Some(n), _) => (n, "--shards"),
            (None, Some(n)) => (n, "PGNKIT_SHARDS"),
            (None, None) => return None,
        };
        if env("SLURM_ARRAY_TASK_ID").is_some() {
            let count = get("SLURM_ARRAY_TASK_COUNT")?;
            // `--array=0-K` or `1-K`: a run's array, numbered either way.
            let min = get("SLURM_ARRAY_TASK_MIN").unwrap_or(0);
            let whole = min <= 1
                && get("SLURM_ARRAY_TASK_STEP").unwrap_or(1) == 1
                && get("SLURM_ARRAY_TASK_MAX").is_none_or(|max| max + 1 == min + count);
            return (whole && count > 1 && given != count).then(|| {
                format!(
                    "--shard auto: {from} {given} is not the {count} tasks of this array, so each task                      runs the shard its ID names, of {given} (some shards of a run run again); if the                      array is the whole run, leave {from} out"
                )
            });
        }
        if env("JOB_COMPLETION_INDEX").is_some() || from == "--shards" {
            return None; // the count Kubernetes needs, or one parse already held to the array's
        }
        let batch = [
            ("AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE"),
            ("BATCH_TASK_INDEX", "BATCH_TASK_COUNT"),
        ];
        let (_, size) = batch.into_iter().find(|(index, _)| env(index).is_some())?;
        let count = get(size)?;
        (given != count)
            .then(|| format!("--shard auto: PGNKIT_SHARDS {given} is not used: {size} {count} is the count"))
    }

    /// The width of `count` in digits: part names pad I and N to it, so they list in order.
    pub fn width(&self) -> usize {
        self.count.to_string().len()
    }

    /// `III-of-NNN`, as part names carry it.
    pub fn label(&self) -> String {
        let w = self.width();
        format!("{:0w$}-of-{:0w$}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn explicit_shards_are_checked() {
        let none = env(&[]);
        assert_eq!(Spec::parse("0/1", None, &none), Ok(Spec { index: 0, count: 1 }));
        assert_eq!(Spec::parse("6/7", Some(7), &none), Ok(Spec { index: 6, count: 7 }));
        for bad in ["0/0", "3/3", "9/2", "1", "a/2", "1/b", "-1/2", ""] {
            assert!(Spec::parse(bad, None, &none).is_err(), "{bad}");
        }
        assert!(Spec::parse("0/0", None, &none).unwrap_err().contains("not 0"));
        assert!(Spec::parse("1/3", Some(4), &none).unwrap_err().contains("--shards 4"));
    }

    #[test]
    fn slurm_index_is_id_minus_min_over_step() {
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(Spec::parse("auto", None, &e), Ok(Spec { index: 3, count: 4 }));
        let e = env(&[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "3")]);
        assert_eq!(Spec::parse("auto", None, &e), Ok(Spec { index: 2, count: 3 }));
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Spec::parse("auto", None, &e).unwrap_err().contains("(MIN 1, STEP 2)"));
        let e = env(&[("SLURM_ARRAY_TASK_ID", "2")]);
        assert!(Spec::parse("auto", None, &e).unwrap_err().contains("SLURM_ARRAY_TASK_COUNT"));
        let e = env(&[("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_COUNT", "3")]);
        assert!(Spec::parse("auto", None, &e).unwrap_err().contains("Slurm"));
        // One task of a larger run submitted again (`--array=2`): refused without the run's count.
        let again =
            [("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_MIN", "2"), ("SLURM_ARRAY_TASK_COUNT", "1")];
        assert!(Spec::parse("auto", None, &env(&again)).unwrap_err().contains("would read the whole input"));
        assert_eq!(Spec::parse("auto", Some(4), &env(&again)), Ok(Spec { index: 2, count: 4 }));
        let with = [again.as_slice(), &[("PGNKIT_SHARDS", "4")]].concat();
        assert_eq!(Spec::parse("auto", None, &env(&with)), Ok(Spec { index: 2, count: 4 }));
        let one = [("SLURM_ARRAY_TASK_ID", "0"), ("SLURM_ARRAY_TASK_COUNT", "1")];
        assert_eq!(Spec::parse("auto", None, &env(&one)), Ok(Spec { index: 0, count: 1 }));
        assert_eq!(Spec::parse("auto", Some(1), &env(&one)), Ok(Spec { index: 0, count: 1 }));
        // Shards 0 and 1 of a run submitted again (`--array=0`, `--array=1`) take the count too.
        for id in ["0", "1"] {
            let again =
                [("SLURM_ARRAY_TASK_ID", id), ("SLURM_ARRAY_TASK_MIN", id), ("SLURM_ARRAY_TASK_COUNT", "1")];
            let index = id.parse().unwrap();
            assert_eq!(Spec::parse("auto", Some(4), &env(&again)), Ok(Spec { index, count: 4 }));
            let with = [again.as_slice(), &[("PGNKIT_SHARDS", "4")]].concat();
            assert_eq!(Spec::parse("auto", None, &env(&with)), Ok(Spec { index, count: 4 }));
        }
        let from_one =
            [("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_COUNT", "1")];
        assert_eq!(Spec::parse("auto", None, &env(&from_one)), Ok(Spec { index: 0, count: 1 }));
        // A full array numbered from 1 with the count given too.
        let full = [
            ("SLURM_ARRAY_TASK_ID", "10"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "10"),
            ("PGNKIT_SHARDS", "10"),
        ];
        assert_eq!(Spec::parse("auto", None, &env(&full)), Ok(Spec { index: 9, count: 10 }));
    }

    /// Several failed shards of a run submitted again as one array (`--array=5-6`, `--array=3,7`):
    /// with the run's count, each task runs its own shard of the run; without it, a task outside
    /// a regular array is refused with what to give.
    #[test]
    fn slurm_arrays_of_some_shards_of_a_run() {
        let part = [
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_STEP", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("PGNKIT_SHARDS", "10"),
        ];
        assert_eq!(Spec::parse("auto", None, &env(&part)), Ok(Spec { index: 6, count: 10 }));
        assert_eq!(Spec::parse("auto", Some(10), &env(&part[..4])), Ok(Spec { index: 6, count: 10 }));
        let listed =
            [("SLURM_ARRAY_TASK_ID", "7"), ("SLURM_ARRAY_TASK_MIN", "3"), ("SLURM_ARRAY_TASK_COUNT", "2")];
        let e = Spec::parse("auto", None, &env(&listed)).unwrap_err();
        assert!(e.contains("not one of a regular array of 2 tasks") && e.contains("PGNKIT_SHARDS=N"), "{e}");
        let listed = [listed.as_slice(), &[("PGNKIT_SHARDS", "8")]].concat();
        assert_eq!(Spec::parse("auto", None, &env(&listed)), Ok(Spec { index: 7, count: 8 }));
        let beyond = [("SLURM_ARRAY_TASK_ID", "9"), ("SLURM_ARRAY_TASK_COUNT", "2"), ("PGNKIT_SHARDS", "8")];
        assert!(Spec::parse("auto", None, &env(&beyond)).unwrap_err().contains("shard 9 of 8"));
    }

    #[test]
    fn kubernetes_takes_the_count_from_shards_or_pgnkit_shards() {
        let e = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert!(Spec::parse("auto", None, &e).unwrap_err().contains("--shards N or PGNKIT_SHARDS"));
        assert_eq!(Spec::parse("auto", Some(8), &e), Ok(Spec { index: 3, count: 8 }));
        let e = env(&[("JOB_COMPLETION_INDEX", "3"), ("PGNKIT_SHARDS", "5")]);
        assert_eq!(Spec::parse("auto", None, &e), Ok(Spec { index: 3, count: 5 }));
        assert!(Spec::parse("auto", Some(3), &e).is_err(), "index 3 of 3");
    }

    #[test]
    fn aws_and_google_batch() {
        let e = env(&[("AWS_BATCH_JOB_ARRAY_INDEX", "9"), ("AWS_BATCH_JOB_ARRAY_SIZE", "10")]);
        assert_eq!(Spec::parse("auto", None, &e), Ok(Spec { index: 9, count: 10 }));
        let e = env(&[("AWS_BATCH_JOB_ARRAY_INDEX", "0")]);
        assert!(Spec::parse("auto", None, &e).unwrap_err().contains("AWS_BATCH_JOB_ARRAY_SIZE"));
        let e = env(&[("BATCH_TASK_INDEX", "1"), ("BATCH_TASK_COUNT", "2")]);
        assert_eq!(Spec::parse("auto", None, &e), Ok(Spec { index: 1, count: 2 }));
        let e = env(&[("BATCH_TASK_INDEX", "x"), ("BATCH_TASK_COUNT", "2")]);
        assert!(Spec::parse("auto", None, &e).unwrap_err().contains("not a whole number"));
    }

    /// A count that does not hold for the array is warned of: a whole Slurm array made some
    /// shards of another run, a Batch array's count overriding PGNKIT_SHARDS. Reruns of some
    /// shards and counts that match are not.
    #[test]
    fn counts_an_array_contradicts_are_warned_of() {
        let whole = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert_eq!(Spec::warning(None, &env(&whole)), None);
        let left = [whole.as_slice(), &[("PGNKIT_SHARDS", "100")]].concat();
        assert!(Spec::warning(None, &env(&left)).is_some_and(|w| w.contains("PGNKIT_SHARDS 100")));
        assert!(Spec::warning(Some(100), &env(&whole)).is_some_and(|w| w.contains("--shards 100")));
        let matching = [whole.as_slice(), &[("PGNKIT_SHARDS", "3")]].concat();
        assert_eq!(Spec::warning(None, &env(&matching)), None);
        let from_one = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("PGNKIT_SHARDS", "100"),
        ];
        assert!(Spec::warning(None, &env(&from_one)).is_some());
        for rerun in [
            [("SLURM_ARRAY_TASK_ID", "7"), ("SLURM_ARRAY_TASK_MIN", "7"), ("SLURM_ARRAY_TASK_COUNT", "1")],
            [("SLURM_ARRAY_TASK_ID", "6"), ("SLURM_ARRAY_TASK_MIN", "5"), ("SLURM_ARRAY_TASK_COUNT", "2")],
        ] {
            let rerun = [rerun.as_slice(), &[("PGNKIT_SHARDS", "100")]].concat();
            assert_eq!(Spec::warning(None, &env(&rerun)), None, "{rerun:?}");
        }
        let google = [("BATCH_TASK_INDEX", "0"), ("BATCH_TASK_COUNT", "2"), ("PGNKIT_SHARDS", "5")];
        assert!(Spec::warning(None, &env(&google)).is_some_and(|w| w.contains("BATCH_TASK_COUNT 2")));
        let aws =
            [("AWS_BATCH_JOB_ARRAY_INDEX", "0"), ("AWS_BATCH_JOB_ARRAY_SIZE", "5"), ("PGNKIT_SHARDS", "5")];
        assert_eq!(Spec::warning(None, &env(&aws)), None);
        let kubernetes = [("JOB_COMPLETION_INDEX", "0"), ("PGNKIT_SHARDS", "5")];
        assert_eq!(Spec::warning(None, &env(&kubernetes)), None);
    }

    #[test]
    fn labels_pad_to_the_count() {
        assert_eq!(Spec { index: 3, count: 7 }.label(), "3-of-7");
        assert_eq!(Spec { index: 3, count: 100 }.label(), "003-of-100");
        assert_eq!(Spec { index: 12, count: 1000 }.label(), "0012-of-1000");
    }
}
