//! `rate_batch._native`: the rate-batch engine called from Python in process.
//!
//! Two doors, both thin: [`run`] runs any `rate-batch` command line (the very jobs of the
//! program, so every figure is the program's), with the GIL released, and returns what it
//! printed or why it failed; [`Rater`] rates games and contests one at a time with any system.
//! The `rate_batch` package (Python) builds the command lines, reads the outputs back as polars
//! DataFrames and raises its exceptions.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use rate_batch::ingest::{InputError, Location};
use rate_batch_core::rater::{AnyRater, any_rater};
use rate_batch_core::systems::{ParamMap, SystemKind};

/// Where a bad input is: file, place (`line`, `row`, `file`, `contest NAME`), the line or
/// row number, the field.
type Place = (String, String, Option<u64>, Option<String>);

/// Runs one `rate-batch` command line (without the program's name) in this process, with the
/// GIL released. Returns the exit code (0 on success), what the command printed, and on
/// failure its message (the cause chain, outermost first, as the program prints it) and, for a
/// bad input, where it is.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> (i32, String, Option<String>, Option<Place>) {
    py.detach(move || {
        let argv = std::iter::once("rate-batch".to_string()).chain(args);
        let parsed = rate_batch::cli::command_with_defaults()
            .try_get_matches_from(argv)
            .and_then(|m| <rate_batch::cli::Cli as clap::FromArgMatches>::from_arg_matches(&m));
        let cli = match parsed {
            Ok(c) => c,
            Err(e) => return (2, String::new(), Some(e.to_string()), None),
        };
        let mut out: Vec<u8> = Vec::new();
        let result = rate_batch::cli::run(cli, &mut out);
        let printed = String::from_utf8_lossy(&out).into_owned();
        match result {
            Ok(()) => (0, printed, None, None),
            Err(e) => {
                let place = e
                    .chain()
                    .find_map(|c| c.downcast_ref::<InputError>())
                    .map(|i| {
                        let (place, number) = match &i.at {
                            Location::File => ("file".to_string(), None),
                            Location::Line(n) => ("line".to_string(), Some(*n)),
                            Location::Row(n) => ("row".to_string(), Some(*n)),
                            Location::Contest(c) => (format!("contest {c}"), None),
                        };
                        (i.file.clone(), place, number, i.field.clone())
                    });
                let code = rate_batch::jobs::exit_code(&e);
                (code, printed, Some(format!("{e:#}")), place)
            }
        }
    })
}

/// A system's parameters from Python values (numbers, booleans, text).
fn params_of(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<ParamMap> {
    let mut map = ParamMap::new();
    for (k, v) in kwargs.into_iter().flatten() {
        let key: String = k.extract()?;
        let value = if v.is_instance_of::<PyBool>() {
            serde_json::Value::Bool(v.extract()?)
        } else if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
            let f: f64 = v.extract()?;
            rate_batch_core::systems::number(f)
                .ok_or_else(|| PyValueError::new_err(format!("{key}: {f} is not finite")))?
        } else if v.is_instance_of::<PyString>() {
            serde_json::Value::String(v.extract()?)
        } else {
            return Err(PyTypeError::new_err(format!(
                "{key}: a number, a bool or a str, not {}",
                v.get_type().name()?
            )));
        };
        map.insert(key.replace('-', "_"), value);
    }
    Ok(map)
}

/// Rates games and contests one at a time, by player name, with any system (the engine's
/// `Rater`: a game rated here is what `replay --period game --growth rounds` does with it).
#[pyclass(module = "rate_batch._native")]
struct Rater {
    inner: Box<dyn AnyRater>,
}

fn rate_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

#[pymethods]
impl Rater {
    #[new]
    #[pyo3(signature = (system, **params))]
    fn new(system: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let kind = SystemKind::from_name(system).ok_or_else(|| {
            let known = systems().join(", ");
            PyValueError::new_err(format!("unknown system `{system}` (known: {known})"))
        })?;
        let params = params_of(params)?;
        let inner = any_rater(kind, &params).map_err(PyValueError::new_err)?;
        Ok(Self { inner })
    }

    #[getter]
    fn system(&self) -> &'static str {
        self.inner.system_name()
    }

    #[pyo3(signature = (name, rating, uncertainty=None, volatility=None))]
    fn seed(&mut self, name: &str, rating: f64, uncertainty: Option<f64>, volatility: Option<f64>) {
        self.inner.seed(name, rating, uncertainty, volatility);
    }

    fn rate_game(&mut self, py: Python<'_>, a: &str, b: &str, score_a: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.rate_game(a, b, score_a))
            .map_err(rate_error)
    }

    fn rate_period(&mut self, py: Python<'_>, games: Vec<(String, String, f64)>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| {
            let refs: Vec<(&str, &str, f64)> = games
                .iter()
                .map(|(a, b, s)| (a.as_str(), b.as_str(), *s))
                .collect();
            inner.rate_period(&refs)
        })
        .map_err(rate_error)
    }

    fn rate_contest(&mut self, py: Python<'_>, standings: Vec<(String, u64)>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| {
            let refs: Vec<(&str, u64)> = standings.iter().map(|(n, r)| (n.as_str(), *r)).collect();
            inner.rate_contest(&refs)
        })
        .map_err(rate_error)
    }

    fn rating(&self, name: &str) -> Option<(f64, Option<f64>, f64)> {
        self.inner
            .rating(name)
            .map(|r| (r.mean, r.uncertainty, r.display))
    }

    fn predict(&self, a: &str, b: &str) -> Option<f64> {
        self.inner.win_probability(a, b)
    }

    fn leaderboard(&self) -> Vec<(String, f64, Option<f64>, f64)> {
        self.inner
            .leaderboard()
            .into_iter()
            .map(|(n, r)| (n, r.mean, r.uncertainty, r.display))
            .collect()
    }
}

/// The names of the systems.
#[pyfunction]
fn systems() -> Vec<&'static str> {
    SystemKind::ALL.iter().map(|k| k.name()).collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_class::<Rater>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
