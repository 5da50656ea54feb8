//! The peer drivers under `peers/` (our code, one small program per peer
//! library): which are installed, building the C++ ones, and running one on
//! one problem file. Every driver prints one JSON line, [`PeerLine`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::problem_set::ProblemFiles;

/// A peer solver: one library's solver, run through its driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// ODE 0.16's `dxSolveLCP` (Dantzig, with findex friction coupling).
    OdeDantzig,
    /// The same with ODE's default constraint force mixing on the diagonal,
    /// as ODE's world stepper would add ([`ode_diagonal`]).
    OdeDantzigCfm,
    /// Bullet 3.24's `btSolveDantzigLCP` (ODE-derived, findex coupling).
    BulletDantzig,
    /// Bullet 3.24's `btLemkeAlgorithm` (plain LCPs).
    BulletLemke,
    /// Siconos numerics' lexicographic Lemke (plain LCPs).
    SiconosLemke,
    /// Siconos numerics' projected Gauss-Seidel (plain LCPs).
    SiconosPgs,
    /// Siconos numerics' enumeration (plain LCPs, n <= 16).
    SiconosEnum,
    /// Drake's `MobyLcpSolver` through `MathematicalProgram` (plain LCPs).
    DrakeMoby,
}

/// Every peer, in report order.
pub const ALL: [Peer; 8] = [
    Peer::OdeDantzig,
    Peer::OdeDantzigCfm,
    Peer::BulletDantzig,
    Peer::BulletLemke,
    Peer::SiconosLemke,
    Peer::SiconosPgs,
    Peer::SiconosEnum,
    Peer::DrakeMoby,
];

/// The libraries the peers come from: a library is installed or not as a
/// whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    /// Debian `libode-dev`.
    Ode,
    /// Debian `libbullet-dev` (its float64 build).
    Bullet,
    /// Debian `python3-siconos`, for `/usr/bin/python3`.
    Siconos,
    /// PyPI `drake`, in the virtual environment of `peers/install.sh`.
    Drake,
}

/// Every library, in report order.
pub const LIBRARIES: [Library; 4] = [
    Library::Ode,
    Library::Bullet,
    Library::Siconos,
    Library::Drake,
];

impl Library {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ode => "ODE (libode-dev)",
            Self::Bullet => "Bullet (libbullet-dev)",
            Self::Siconos => "Siconos (python3-siconos)",
            Self::Drake => "Drake (pip drake)",
        }
    }
}

impl Peer {
    /// Its name in the report (the driver prints the same).
    pub fn name(self) -> &'static str {
        match self {
            Self::OdeDantzig => "ode_dantzig",
            Self::OdeDantzigCfm => "ode_dantzig_cfm",
            Self::BulletDantzig => "bullet_dantzig",
            Self::BulletLemke => "bullet_lemke",
            Self::SiconosLemke => "siconos_lemke",
            Self::SiconosPgs => "siconos_pgs",
            Self::SiconosEnum => "siconos_enum",
            Self::DrakeMoby => "drake_moby",
        }
    }

    /// The library it comes from.
    pub fn library(self) -> Library {
        match self {
            Self::OdeDantzig | Self::OdeDantzigCfm => Library::Ode,
            Self::BulletDantzig | Self::BulletLemke => Library::Bullet,
            Self::SiconosLemke | Self::SiconosPgs | Self::SiconosEnum => Library::Siconos,
            Self::DrakeMoby => Library::Drake,
        }
    }

    /// Whether it solves only symmetric problems (the Dantzig solvers read
    /// one triangle of `M`, so the xtask does not give them others).
    pub fn needs_symmetric(self) -> bool {
        matches!(
            self,
            Self::OdeDantzig | Self::OdeDantzigCfm | Self::BulletDantzig
        )
    }

    /// Whether its driver solves a set of problems (the C++ drivers read a
    /// text file of several, see peers/common/lcp_text.hpp; the Python
    /// ones read our JSON format, which holds one).
    pub fn takes_sets(self) -> bool {
        self.library() == Library::Ode || self.library() == Library::Bullet
    }
}

/// ODE's default constraint force mixing (`dWorldGetCFM` of a new world in
/// the double-precision build: 1e-10).
const ODE_DEFAULT_CFM: f64 = 1e-10;

/// What ODE's stepper adds to the diagonal, in the units of our
/// impulse-level matrices: `cfm / h` (ODE's step.cpp adds `cfm / h` to
/// `J M^-1 J'` for forces; impulses are forces times `h`), at our default
/// step `h = 1/240` s: 2.4e-8.
pub fn ode_diagonal() -> f64 {
    ODE_DEFAULT_CFM / contact_sim::FixedStepParams::default().h
}

/// Where the drivers and their interpreters are.
pub struct Setup {
    /// The workspace root (drivers' sources under `peers/`).
    pub root: PathBuf,
    /// `target/bench-peers`: binaries in `bin/`, Drake's venv.
    pub work: PathBuf,
}

/// Python with Debian's packages (Siconos is installed for it).
const SYSTEM_PYTHON: &str = "/usr/bin/python3";

impl Setup {
    /// Drake's Python (the venv made by `peers/install.sh`).
    fn drake_python(&self) -> PathBuf {
        self.work.join("drake-venv/bin/python")
    }

    fn binary(&self, name: &str) -> PathBuf {
        self.work.join("bin").join(name)
    }

    /// Whether `library` is installed; the reason when not.
    pub fn probe(&self, library: Library) -> Result<(), String> {
        match library {
            Library::Ode => pkg_config("ode"),
            Library::Bullet => pkg_config("bullet-float64"),
            Library::Siconos => python_imports(Path::new(SYSTEM_PYTHON), "siconos.numerics"),
            Library::Drake => python_imports(&self.drake_python(), "pydrake.solvers"),
        }
    }

    /// Builds the C++ driver of `library` (ODE, Bullet) into `bin/` with g++
    /// and the library's pkg-config flags; nothing for the Python ones.
    pub fn build(&self, library: Library) -> Result<(), String> {
        let (source, binary, package) = match library {
            Library::Ode => ("peers/ode/ode_dantzig.cpp", "ode_dantzig", "ode"),
            Library::Bullet => (
                "peers/bullet/bullet_mlcp.cpp",
                "bullet_mlcp",
                "bullet-float64",
            ),
            Library::Siconos | Library::Drake => return Ok(()),
        };
        let flags = Command::new("pkg-config")
            .args(["--cflags", "--libs", package])
            .output()
            .map_err(|e| format!("pkg-config: {e}"))?;
        if !flags.status.success() {
            return Err(format!("pkg-config --cflags --libs {package} failed"));
        }
        let flags = String::from_utf8_lossy(&flags.stdout).into_owned();
        let out = self.binary(binary);
        std::fs::create_dir_all(self.work.join("bin")).map_err(|e| e.to_string())?;
        let status = Command::new("g++")
            .current_dir(&self.root)
            .args(["-O2", "-std=c++17", "-o"])
            .arg(&out)
            .arg(source)
            .args(flags.split_whitespace())
            .status()
            .map_err(|e| format!("g++: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("g++ {source} failed ({status})"))
        }
    }

    /// The command that solves `files` with `peer`, `repeat` timed times.
    fn command(&self, peer: Peer, files: &ProblemFiles, repeat: usize) -> Command {
        let k = repeat.to_string();
        let mut command;
        match peer {
            Peer::OdeDantzig => {
                command = Command::new(self.binary("ode_dantzig"));
                command.arg(&files.text).arg(&k);
            }
            Peer::OdeDantzigCfm => {
                command = Command::new(self.binary("ode_dantzig"));
                command
                    .arg(&files.text)
                    .arg(&k)
                    .arg(format!("{:?}", ode_diagonal()));
            }
            Peer::BulletDantzig | Peer::BulletLemke => {
                command = Command::new(self.binary("bullet_mlcp"));
                let method = if peer == Peer::BulletDantzig {
                    "dantzig"
                } else {
                    "lemke"
                };
                command.arg(&files.text).arg(&k).arg(method);
            }
            Peer::SiconosLemke | Peer::SiconosPgs | Peer::SiconosEnum => {
                command = Command::new(SYSTEM_PYTHON);
                let method = match peer {
                    Peer::SiconosLemke => "lemke",
                    Peer::SiconosPgs => "pgs",
                    _ => "enum",
                };
                command
                    .arg(self.root.join("peers/siconos/siconos_lcp.py"))
                    .arg(&files.json)
                    .arg(&k)
                    .arg(method);
            }
            Peer::DrakeMoby => {
                command = Command::new(self.drake_python());
                command
                    .arg(self.root.join("peers/drake/drake_moby.py"))
                    .arg(&files.json)
                    .arg(&k);
            }
        }
        command
    }

    /// Runs `peer` on `files`; gives up after `timeout` (the driver is
    /// killed). The error says why there is no line.
    pub fn run(
        &self,
        peer: Peer,
        files: &ProblemFiles,
        repeat: usize,
        timeout: Duration,
    ) -> Result<PeerLine, String> {
        run_driver(self.command(peer, files, repeat), timeout)
    }
}

/// Runs a driver's `command` and parses its line; gives up after
/// `timeout` (the driver is killed). The error says why there is no line.
fn run_driver(mut command: Command, timeout: Duration) -> Result<PeerLine, String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the driver: {e}"))?;
    // Both pipes are drained while the driver runs: a driver that
    // writes more than a pipe holds (ODE prints a line to stderr for
    // every failed call: 700 kB on normal_stack_5) would otherwise
    // block until the timeout.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if started.elapsed() > timeout => {
                // Our own child, by its handle.
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        let last = stderr.lines().last().unwrap_or("").trim();
        return Err(format!("driver exited with {status}: {last}"));
    }
    PeerLine::parse(&stdout)
}

/// The line a driver prints.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PeerLine {
    /// The peer's name.
    pub solver: String,
    /// Its answer (`null` entries, i.e. non-finite values, become NaN).
    #[serde(deserialize_with = "nullable_vec")]
    pub z: Vec<f64>,
    /// Median seconds of the timed solve calls.
    pub seconds: f64,
    /// Median seconds of the clock reads around a call, measured on an
    /// empty timed region (the C++ drivers; the Python ones, whose calls
    /// take microseconds, leave it out).
    #[serde(default)]
    pub clock_seconds: Option<f64>,
    /// The peer's own verdict: `solved`, `failed`, `returned` (ODE reports
    /// nothing), `not_applicable` or `not_installed`.
    pub status: String,
    /// Why it did not run, for `not_applicable` and `not_installed`.
    #[serde(default)]
    pub reason: Option<String>,
}

fn nullable_vec<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let values = Vec::<Option<f64>>::deserialize(d)?;
    Ok(values.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

impl PeerLine {
    /// Parses the last non-empty line of a driver's output (libraries may
    /// print before it).
    pub fn parse(stdout: &str) -> Result<Self, String> {
        let line = stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .ok_or("the driver printed nothing")?;
        serde_json::from_str(line).map_err(|e| format!("bad driver line ({e}): {line}"))
    }
}

fn pkg_config(package: &str) -> Result<(), String> {
    match Command::new("pkg-config")
        .args(["--exists", package])
        .status()
    {
        Ok(status) if status.success() => {}
        Ok(_) => return Err(format!("pkg-config finds no `{package}`")),
        Err(e) => return Err(format!("no pkg-config ({e})")),
    }
    match Command::new("g++").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err("no g++".into()),
    }
}

fn python_imports(python: &Path, module: &str) -> Result<(), String> {
    match Command::new(python)
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(status) if status.success() => Ok(()),
        Ok(_) => Err(format!("{} cannot import {module}", python.display())),
        Err(e) => Err(format!("no {} ({e})", python.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_last_line_with_null_entries() {
        let out = "some library banner\n{\"solver\":\"ode_dantzig\",\"z\":[1.5,null,0],\
                   \"seconds\":2.5e-6,\"clock_seconds\":2.2e-8,\"status\":\"returned\"}\n\n";
        let line = PeerLine::parse(out).unwrap();
        assert_eq!(line.solver, "ode_dantzig");
        assert_eq!(line.z[0], 1.5);
        assert!(line.z[1].is_nan());
        assert_eq!(line.z[2], 0.0);
        assert_eq!(line.seconds, 2.5e-6);
        assert_eq!(line.clock_seconds, Some(2.2e-8));
        assert_eq!(line.status, "returned");
        assert_eq!(line.reason, None);
    }

    #[test]
    fn a_skip_line_keeps_its_reason_and_garbage_is_an_error() {
        let out = r#"{"solver": "siconos_enum", "z": [], "seconds": 0, "status": "not_applicable", "reason": "n > 16"}"#;
        let line = PeerLine::parse(out).unwrap();
        assert_eq!(line.status, "not_applicable");
        assert_eq!(line.reason.as_deref(), Some("n > 16"));
        assert_eq!(line.clock_seconds, None);
        assert!(PeerLine::parse("").is_err());
        assert!(PeerLine::parse("Segmentation fault").is_err());
        assert!(PeerLine::parse(r#"{"solver": "x", "z": [], "status": "solved"}"#).is_err());
    }

    /// A driver that writes far more to stderr than a pipe holds (ODE's
    /// message on every failed call) finishes and is read, rather than
    /// blocking on the full pipe until the timeout; and one that hangs is
    /// killed at the timeout.
    #[test]
    fn a_chatty_driver_does_not_block_and_a_hung_one_times_out() {
        let mut chatty = Command::new("sh");
        chatty.args([
            "-c",
            "head -c 2000000 /dev/zero | tr '\\0' x >&2; \
             echo '{\"solver\":\"s\",\"z\":[1],\"seconds\":1e-6,\"status\":\"returned\"}'",
        ]);
        let started = Instant::now();
        let line = run_driver(chatty, Duration::from_secs(20)).unwrap();
        assert_eq!((line.solver.as_str(), line.z.as_slice()), ("s", &[1.0][..]));
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut hung = Command::new("sleep");
        hung.arg("30");
        let error = run_driver(hung, Duration::from_millis(200)).unwrap_err();
        assert!(error.contains("timed out"), "{error}");
    }

    #[test]
    fn every_peer_belongs_to_a_listed_library() {
        for peer in ALL {
            assert!(LIBRARIES.contains(&peer.library()), "{}", peer.name());
        }
    }
}
