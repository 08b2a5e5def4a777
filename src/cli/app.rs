//! `spotter app`: the companion app. Opens the webcam when there is one and
//! the bundled demo recording when there is not (or with `--demo`).
//! `--bench SECONDS` runs the same app headless on the demo and reports the
//! UI frame time and the overlay lag; `--exit-after SECONDS` closes a real
//! window after that long and prints the same figures.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::capture::camera::{self, CameraChoice, Mode};
use crate::capture::folder::Playback;
use crate::ui::session::GameSession;
use crate::ui::stats::Summary;
use crate::ui::{AppLogic, SourceChoice, SpotterApp};
use crate::vision::params::DetectorParams;
use crate::vision::track::TrackerParams;

/// The bundled demo recording, relative to the working directory or to the
/// crate.
pub const DEMO_DIR: &str = "fixtures/demo";
/// The demo camera's lens file, inside [`DEMO_DIR`].
pub const DEMO_CAMERA_FILE: &str = "camera.toml";
/// The game the demo recording opens: every figure on its photos is in the
/// roster and bound at once.
pub const DEMO_SCENARIO: &str = "scenarios/demo-stand-to.toml";
/// The window size the app opens at, points.
const WINDOW_SIZE: [f32; 2] = [1600.0, 1000.0];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// `camera` (the first webcam), `camera:N` (webcam N), a folder of
    /// photos or a video file (a recorded game: .mp4, .avi, .mkv ...).
    /// Default: the webcam, else the demo.
    #[arg(long)]
    pub source: Option<String>,
    /// Open the bundled demo recording.
    #[arg(long, conflicts_with = "source")]
    pub demo: bool,
    /// Webcam resolution and frame rate, e.g. 1920x1080@30.
    #[arg(long)]
    pub mode: Option<String>,
    /// Camera file (lens intrinsics) from `spotter calibrate-lens`.
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// Table layout file.
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// Seconds each photo of a recording is shown.
    #[arg(long, default_value_t = 4.0, value_parser = crate::spec::flag::seconds_or_zero)]
    pub hold_s: f64,
    /// Frames per second a recording is played at.
    #[arg(long, default_value_t = 30.0, value_parser = crate::spec::flag::fps)]
    pub fps: f64,
    /// Simulate a camera pulled out after this many frames.
    #[arg(long)]
    pub fail_after: Option<u64>,
    /// Scenario a new game starts from (default: the demo's Stand To! game
    /// on the demo recording, else scenarios/dragoon.toml).
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Folder of game logs: the newest is resumed at start.
    #[arg(long, default_value = crate::ui::session::GAMES_DIR)]
    pub games_dir: PathBuf,
    /// Start a new game instead of resuming the newest one.
    #[arg(long)]
    pub new_game: bool,
    /// Select this game figure (by name) at start: its fire arc, command
    /// radius, melee zone, sight lines and movement are drawn.
    #[arg(long)]
    pub select: Option<String>,
    /// Start with large text (readable at arm's length; L toggles it).
    #[arg(long)]
    pub large_text: bool,
    /// List the webcams and their modes, then exit.
    #[arg(long)]
    pub list_cameras: bool,
    /// Run headless on the source for this many seconds and report the UI
    /// frame time and overlay lag (median and p95).
    #[arg(long, value_parser = crate::spec::flag::seconds)]
    pub bench: Option<f64>,
    /// With --bench: game commands issued one every --bench-step seconds,
    /// round and round (see src/cli/bench_script.rs); the app prints each
    /// committed log record's state digest (the soak test reads them).
    #[arg(long, requires = "bench")]
    pub bench_script: Option<PathBuf>,
    /// Seconds between the commands of --bench-script.
    #[arg(long, default_value_t = 5.0, value_parser = crate::spec::flag::seconds)]
    pub bench_step: f64,
    /// Close the window after this many seconds and print the timings.
    #[arg(long, value_parser = crate::spec::flag::seconds)]
    pub exit_after: Option<f64>,
}

/// The demo folder: under the working directory, else beside the crate.
pub fn demo_dir() -> PathBuf {
    let here = Path::new(DEMO_DIR);
    if here.is_dir() {
        here.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO_DIR)
    }
}

fn parse_mode(text: &str) -> anyhow::Result<Mode> {
    let err = || format!("--mode {text:?}: expected WIDTHxHEIGHT@FPS, e.g. 1920x1080@30");
    let (size, fps) = text.split_once('@').with_context(err)?;
    let (w, h) = size.split_once('x').with_context(err)?;
    let fps: u32 = fps.trim().parse().with_context(err)?;
    let (min, max) = (crate::spec::flag::MIN_FPS, crate::spec::flag::MAX_FPS);
    if !(min..=max).contains(&f64::from(fps)) || fps == 0 {
        bail!("--mode {text:?}: {fps} frames per second is out of range (1 to {max})");
    }
    Ok(Mode {
        width_px: w.trim().parse().with_context(err)?,
        height_px: h.trim().parse().with_context(err)?,
        fps,
    })
}

fn choose_source(args: &Args) -> anyhow::Result<SourceChoice> {
    let playback = Playback {
        fps: args.fps,
        hold: Duration::from_secs_f64(args.hold_s.max(0.0)),
        looped: true,
    };
    let mode = args.mode.as_deref().map(parse_mode).transpose()?;
    let folder = |dir: PathBuf| -> anyhow::Result<SourceChoice> {
        if !dir.is_dir() {
            bail!("{} is not a folder of photos", dir.display());
        }
        let photos = crate::capture::folder::list_photos(&dir)
            .with_context(|| format!("reading the folder {}", dir.display()))?;
        if photos.is_empty() {
            bail!(
                "the folder {} holds no photos (.jpg, .png): give a folder of a recorded game",
                dir.display()
            );
        }
        Ok(match args.fail_after {
            Some(n) => SourceChoice::Failing {
                dir,
                playback,
                frames_before_failure: n,
                refused_reconnects: 0,
            },
            None => SourceChoice::Folder { dir, playback },
        })
    };
    match args.source.as_deref() {
        _ if args.demo => folder(demo_dir()),
        Some(s) if s == "camera" || s.starts_with("camera:") => {
            let index = match s.strip_prefix("camera:") {
                Some(n) => n
                    .parse()
                    .with_context(|| format!("--source {s}: bad camera number"))?,
                None => 0,
            };
            Ok(SourceChoice::Camera(CameraChoice { index, mode }))
        }
        Some(path) if crate::capture::video::is_video(Path::new(path)) => {
            let path = PathBuf::from(path);
            if !path.is_file() {
                bail!("{}: no such video file", path.display());
            }
            if args.fail_after.is_some() {
                bail!("--fail-after simulates a lost camera on a folder of photos, not a video");
            }
            // Open it once here, so that a file that is not a video is an
            // error now, not a notice later.
            crate::capture::video::VideoSource::open(&path, playback)
                .with_context(|| format!("{} is not a video Spotter can read", path.display()))?;
            Ok(SourceChoice::Video { path, playback })
        }
        Some(dir) => folder(PathBuf::from(dir)),
        None => match camera::list_cameras() {
            Ok(cams) if !cams.is_empty() => Ok(SourceChoice::Camera(CameraChoice {
                index: cams[0].index,
                mode,
            })),
            _ => {
                eprintln!("no webcam found: opening the demo recording");
                folder(demo_dir())
            }
        },
    }
}

/// The scenario a new game starts from: the one asked for, else the
/// demo's own game on the demo recording, else the default scenario. A
/// relative default is looked for under the working directory, then beside
/// the crate.
fn scenario_for(asked: Option<&Path>, source: &SourceChoice) -> PathBuf {
    if let Some(p) = asked {
        return p.to_path_buf();
    }
    let demo = matches!(
        source,
        SourceChoice::Folder { dir, .. } | SourceChoice::Failing { dir, .. } if *dir == demo_dir()
    );
    let name = if demo {
        DEMO_SCENARIO
    } else {
        crate::ui::session::DEFAULT_SCENARIO
    };
    let here = Path::new(name);
    if here.exists() {
        here.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
    }
}

/// The detector parameters file, when there is one here.
pub const VISION_PARAMS_PATH: &str = "calibration/vision.toml";

fn load_params() -> anyhow::Result<DetectorParams> {
    let path = Path::new(VISION_PARAMS_PATH);
    if path.exists() {
        DetectorParams::load(path).with_context(|| format!("loading {VISION_PARAMS_PATH}"))
    } else {
        DetectorParams::defaults().context("the built-in detector parameters")
    }
}

fn print_cameras() -> anyhow::Result<ExitCode> {
    let cams = camera::list_cameras()?;
    if cams.is_empty() {
        println!("no webcams found");
    }
    for c in cams {
        println!("camera:{} {}", c.index, c.name);
        match camera::list_modes(c.index) {
            Ok(modes) => {
                for m in modes {
                    println!("    {m}");
                }
            }
            Err(e) => println!("    (modes unavailable: {e})"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(what: &str, s: Option<Summary>, unit: &str) {
    match s {
        Some(s) => println!(
            "{what}: median {:.1} {unit}, p95 {:.1} {unit} ({} samples)",
            s.median, s.p95, s.count
        ),
        None => println!("{what}: no samples"),
    }
}

fn print_stats(logic: &AppLogic) {
    let st = &logic.stats;
    print_summary("UI frame interval", st.ui.intervals_ms().summary(), "ms");
    print_summary("UI build+paint (CPU)", st.paint_ms.summary(), "ms");
    print_summary(
        "detection frame interval",
        st.detection.intervals_ms().summary(),
        "ms",
    );
    print_summary("detection work per frame", st.work_ms.summary(), "ms");
    print_summary(
        "overlay lag (capture to screen)",
        st.overlay_latency_ms.summary(),
        "ms",
    );
    if let Some(fps) = st.ui.rate_hz() {
        println!("UI rate: {fps:.1} fps");
    }
}

/// Resumes the newest game of the games folder (or starts a new one), and
/// says which it did, from which file, and what was repaired.
fn open_session(args: &Args, scenario: &Path) -> anyhow::Result<GameSession> {
    let dir = &args.games_dir;
    if dir.exists() && !dir.is_dir() {
        bail!(
            "--games-dir {} is a file, not a folder: give the folder the game logs go in",
            dir.display()
        );
    }
    let newest = if args.new_game {
        None
    } else {
        crate::ui::session::newest_log(dir)
    };
    let session = match &newest {
        Some(log) => GameSession::resume(log, rand::random())?,
        None => GameSession::new_game(scenario, dir, rand::random())
            .with_context(|| format!("starting a game from {}", scenario.display()))?,
    };
    match &newest {
        Some(log) => println!(
            "resumed the game from {} ({} commands)",
            log.display(),
            session.game.history().len()
        ),
        None => println!(
            "new game of {}, logged to {}",
            scenario.display(),
            session.log_path.display()
        ),
    }
    if let Some(r) = session.game.repair() {
        println!("{r}");
    }
    Ok(session)
}

/// What the app would only show as a notice: fatal headless, printed in a
/// window run.
fn check_session(
    session: &GameSession,
    select: Option<&str>,
    headless: bool,
) -> anyhow::Result<()> {
    let mut problems = Vec::new();
    if let Some(name) = select
        && session.state().figure_named(name).is_none()
    {
        problems.push(format!("--select: no figure named {name:?} in this game"));
    }
    if let Err(e) = crate::ui::session::load_bindings(&session.log_path) {
        problems.push(format!("bindings: {e:#}"));
    }
    match problems.as_slice() {
        [] => Ok(()),
        _ if headless => bail!("{}", problems.join("; ")),
        _ => {
            for p in &problems {
                eprintln!("{p}");
            }
            Ok(())
        }
    }
}

/// Drives the app headless: egui runs and tessellates every frame as it
/// would on screen; only the GPU upload is missing.
fn bench(logic: AppLogic, seconds: f64, mut script: Option<super::bench_script::Driver>) {
    let ctx = egui::Context::default();
    let mut app = SpotterApp::new(logic);
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let mut input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(WINDOW_SIZE[0], WINDOW_SIZE[1]),
        )),
        ..Default::default()
    };
    let start = Instant::now();
    while Instant::now() < end {
        input.time = Some(start.elapsed().as_secs_f64());
        let mut out = ctx.run_ui(input.take(), |ui| app.show(ui));
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        // There is no GPU to upload the frame textures to.
        out.textures_delta.clear();
        if let Some(d) = script.as_mut() {
            d.tick(&mut app.logic, Instant::now());
        }
        std::thread::sleep(crate::ui::app::UI_FRAME_PERIOD);
    }
    println!(
        "headless bench, {seconds:.0} s, window {}x{}:",
        WINDOW_SIZE[0], WINDOW_SIZE[1]
    );
    print_stats(&app.logic);
    println!(
        "frames: {} shown, {} dropped",
        app.logic.frames_shown, app.logic.frames_dropped
    );
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.list_cameras {
        return print_cameras();
    }
    let source = choose_source(&args)?;
    let layout = super::load_layout(args.layout.as_deref())?;
    // The demo recording comes with the lens calibration of its camera.
    let demo_camera = demo_dir().join(DEMO_CAMERA_FILE);
    let camera_file = match (&args.camera, &source) {
        (Some(p), _) => Some(p.clone()),
        (None, SourceChoice::Folder { dir, .. } | SourceChoice::Failing { dir, .. })
            if *dir == demo_dir() && demo_camera.exists() =>
        {
            Some(demo_camera)
        }
        _ => None,
    };
    let lens = super::load_camera(camera_file.as_deref())?;
    let factory = crate::ui::perceive::standard_factory(
        layout,
        lens,
        load_params()?,
        TrackerParams::default(),
    );
    let scenario = scenario_for(args.scenario.as_deref(), &source);
    let session = open_session(&args, &scenario);
    let headless = args.bench.is_some();
    let session = match session {
        Ok(s) => {
            check_session(&s, args.select.as_deref(), headless)?;
            Ok(s)
        }
        // Headless, there is no one to show the error to: it is fatal.
        Err(e) if headless => return Err(e),
        // A game that cannot be opened is shown, not fatal: the table view works.
        Err(e) => {
            eprintln!("no game: {e:#}");
            Err(format!("{e:#}"))
        }
    };
    let games_dir = args.games_dir.clone();
    let (select, large_text) = (args.select.clone(), args.large_text);
    let setup = move |logic: &mut AppLogic| {
        logic.games_dir = games_dir.clone();
        logic.large_text = large_text;
        match session {
            Ok(mut s) => {
                if let Some(name) = &select {
                    match s.state().figure_named(name).map(|f| f.id) {
                        Some(id) => s.actor = Some(id),
                        None => logic.notice(format!("--select: no figure named {name:?}")),
                    }
                }
                logic.set_session(s);
            }
            Err(e) => logic.notice(format!("no game: {e}")),
        }
    };
    if let Some(seconds) = args.bench {
        let script = match &args.bench_script {
            Some(path) => Some(super::bench_script::Driver::new(
                super::bench_script::load(path)?,
                Duration::from_secs_f64(args.bench_step),
            )),
            None => None,
        };
        let mut logic = AppLogic::new(source, factory, Arc::new(|| {}));
        setup(&mut logic);
        bench(logic, seconds, script);
        return Ok(ExitCode::SUCCESS);
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(WINDOW_SIZE)
            .with_title("Spotter"),
        ..Default::default()
    };
    let exit_after = args.exit_after.map(Duration::from_secs_f64);
    eframe::run_native(
        "Spotter",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let mut logic = AppLogic::new(source, factory, Arc::new(move || ctx.request_repaint()));
            setup(&mut logic);
            Ok(Box::new(TimedApp {
                app: SpotterApp::new(logic),
                started: Instant::now(),
                exit_after,
                reported: false,
            }))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// The app, closed after a while when asked (for measuring under Xvfb).
struct TimedApp {
    app: SpotterApp,
    started: Instant,
    exit_after: Option<Duration>,
    reported: bool,
}

impl eframe::App for TimedApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.show(ui);
        if let Some(limit) = self.exit_after {
            if self.started.elapsed() >= limit {
                if std::mem::replace(&mut self.reported, true) {
                    return;
                }
                println!("window run, {:.0} s:", limit.as_secs_f64());
                print_stats(&self.app.logic);
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            } else {
                ui.ctx()
                    .request_repaint_after(crate::ui::app::UI_FRAME_PERIOD);
            }
        }
    }
}
