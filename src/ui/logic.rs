//! The app's logic, with no painting: which source is open, the newest
//! processed frame, the timings, the selection, and the commands the
//! painted UI emits. Everything here can be driven by a test without a
//! window.
//!
//! # Conventions
//! - Figure positions are table inches (table frame of `TABLE_KIT.md`).
//! - Figures are named by the id the perception gave them ([`SeenFigure::id`]).
//! - Times are [`Instant`]s; reported durations are milliseconds.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::capture::camera::{CameraChoice, CameraSource};
use crate::capture::folder::{FolderSource, Playback};
use crate::capture::{CaptureError, FailingSource, FrameSource, SourceOpener, VideoSource};

use super::pipeline::{Perceiver, PictureFault, Pipeline, PipelineEvent, Processed, SeenFigure};
use super::session::{GameSession, ScenarioEntry};
use super::stats::Stats;
use crate::game::{FigureId, Observed};
use crate::geometry::{normalize_deg, position_sigma_in};
use std::collections::BTreeMap;

/// Where frames come from.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceChoice {
    /// A webcam.
    Camera(CameraChoice),
    /// A recorded folder of photos.
    Folder { dir: PathBuf, playback: Playback },
    /// A recorded video file.
    Video { path: PathBuf, playback: Playback },
    /// A recorded folder that fails after some frames (the unplugged camera,
    /// simulated); reconnects are refused `refused_reconnects` times.
    Failing {
        dir: PathBuf,
        playback: Playback,
        frames_before_failure: u64,
        refused_reconnects: u32,
    },
    /// A source made in code (a scripted camera in the tests).
    Custom(CustomSource),
}

/// A source made in code: its name and how to open it.
#[derive(Clone)]
pub struct CustomSource {
    pub name: String,
    pub open: Arc<dyn Fn() -> Result<Box<dyn FrameSource>, CaptureError> + Send + Sync>,
}

impl std::fmt::Debug for CustomSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CustomSource({})", self.name)
    }
}

impl PartialEq for CustomSource {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.open, &other.open)
    }
}

impl SourceChoice {
    /// A short name for messages: "webcam 0 1920x1080@30", "folder demo".
    pub fn describe(&self) -> String {
        match self {
            Self::Camera(c) => match &c.mode {
                Some(m) => format!("webcam {} {m}", c.index),
                None => format!("webcam {}", c.index),
            },
            Self::Folder { dir, .. } | Self::Failing { dir, .. } => {
                format!("folder {}", dir.display())
            }
            Self::Video { path, .. } => format!("video {}", path.display()),
            Self::Custom(c) => c.name.clone(),
        }
    }

    /// Builds the opener that runs on the capture thread.
    pub fn opener(&self) -> SourceOpener {
        match self.clone() {
            Self::Camera(choice) => {
                Box::new(move || Ok(Box::new(CameraSource::open(choice)?) as Box<dyn FrameSource>))
            }
            Self::Folder { dir, playback } => Box::new(move || {
                Ok(Box::new(FolderSource::open(&dir, playback)?) as Box<dyn FrameSource>)
            }),
            Self::Video { path, playback } => Box::new(move || {
                Ok(Box::new(VideoSource::open(&path, playback)?) as Box<dyn FrameSource>)
            }),
            Self::Failing {
                dir,
                playback,
                frames_before_failure,
                refused_reconnects,
            } => Box::new(move || {
                let inner = FolderSource::open(&dir, playback)?;
                Ok(Box::new(FailingSource::new(
                    inner,
                    frames_before_failure,
                    refused_reconnects,
                )) as Box<dyn FrameSource>)
            }),
            Self::Custom(c) => Box::new(move || (c.open)()),
        }
    }
}

/// Is the source delivering?
#[derive(Debug, Clone, PartialEq)]
pub enum SourceStatus {
    Opening,
    Live {
        source: String,
    },
    /// The source failed: the game goes on, and the UI offers a reconnect.
    Lost {
        source: String,
        reason: String,
        since: Instant,
    },
}

/// What the painted UI asks the logic to do. The UI never changes state
/// itself.
#[derive(Debug, Clone, PartialEq)]
pub enum UiCommand {
    /// A click on a figure: the first makes it the actor, a click on
    /// another then makes that the target; a click on the actor clears.
    ClickFigure(u32),
    ClearSelection,
    Relock,
    Reconnect,
    ToggleLargeText,
    /// Save the live view with its overlay as a PNG.
    SaveScreenshot,
    /// A click on a game figure in the roster (actor, then target).
    ClickGameFigure(FigureId),
    /// Choose the action by its index in the rule set's action labels.
    SetAction(usize),
    /// Switch to another source (the game is kept).
    OpenSource(SourceChoice),
    /// Look for webcams and their modes (for the Source section).
    FindCameras,
    /// Roll the chosen action with Spotter's dice.
    Roll,
    /// Resolve the chosen action with dice typed in from the table.
    RollTyped(String),
    Undo,
    EndPhase,
    /// Start a new game from a scenario file.
    NewGame(PathBuf),
    /// Resume a game from its log file.
    LoadGame(PathBuf),
    /// Save a copy of the game log.
    SaveGame(PathBuf),
    /// Bind a seen figure (by its track id) to a game figure.
    Bind {
        track: u32,
        figure: FigureId,
    },
    /// Lens wizard: find the ChArUco board on the newest frame.
    CaptureLensView,
    /// Lens wizard: write the fitted lens to its camera file.
    SaveLens,
    /// Lens wizard: forget the views and start again.
    ResetLens,
    /// Forget which seen figure a game figure is.
    Unbind {
        figure: FigureId,
    },
    /// Bound figures follow the camera, or stay where the game has them.
    ToggleFollowCamera,
    /// A click on a terrain piece the camera sees: it is the one the
    /// kind buttons mark.
    ChooseSeenTerrain(usize),
    /// The player says what the chosen seen piece is: the index of the
    /// choice in [`crate::game::terrain::CHOICES`].
    MarkSeenTerrain(usize),
}

/// The actor and target chosen by clicking figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selection {
    pub actor: Option<u32>,
    pub target: Option<u32>,
}

impl Selection {
    /// The click rule of [`UiCommand::ClickFigure`].
    pub fn click(&mut self, id: u32) {
        match (self.actor, self.target) {
            (Some(a), _) if a == id => *self = Self::default(),
            (Some(_), Some(t)) if t == id => self.target = None,
            (Some(_), _) => self.target = Some(id),
            (None, _) => self.actor = Some(id),
        }
    }
}

/// Where screenshots go unless told otherwise.
pub const SCREENSHOT_DIR: &str = "screenshots";

/// A bound figure seen at least this far from where the game has it is
/// placed again, inches: less is the camera's jitter, not a move.
pub const FOLLOW_MIN_MOVE_IN: f64 = 0.25;
/// ... or turned at least this much, degrees.
pub const FOLLOW_MIN_TURN_DEG: f64 = 10.0;
/// Where scenario files are looked for (under the working directory, else
/// beside the crate).
pub const SCENARIOS_DIR: &str = "scenarios";

/// The scenarios folder: under the working directory, else beside the crate.
pub fn scenarios_dir() -> PathBuf {
    let here = PathBuf::from(SCENARIOS_DIR);
    if here.is_dir() {
        here
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIOS_DIR)
    }
}

/// The app's logic.
pub struct AppLogic {
    pub source_choice: SourceChoice,
    pub status: SourceStatus,
    /// The newest frame with what was seen on it.
    pub latest: Option<Processed>,
    pub stats: Stats,
    pub selection: Selection,
    /// The seen terrain piece the kind buttons mark (chosen by a click).
    pub terrain_choice: Option<crate::vision::terrain::SeenTerrain>,
    pub large_text: bool,
    /// A screenshot was asked for; the painter takes it and clears this.
    pub screenshot_requested: bool,
    pub screenshot_dir: PathBuf,
    /// Short messages for the status line (newest last).
    pub notices: Vec<String>,
    /// The game; kept whatever happens to the source.
    pub session: Option<GameSession>,
    /// Seen figures (track ids) bound to game figures.
    pub bindings: BTreeMap<u32, FigureId>,
    /// Where new games are logged.
    pub games_dir: PathBuf,
    /// Bound figures follow the camera: where the camera sees them is logged
    /// as their position ([`crate::game::Command::observe`]).
    pub follow_camera: bool,
    /// The scenarios the New game picker offers.
    pub scenarios: Vec<ScenarioEntry>,
    /// Rule sets by name, for the picker.
    pub rule_sets: Vec<String>,
    /// The lens step of the calibration wizard.
    pub lens_wizard: super::lens_wizard::LensWizard,
    /// Webcams found by the last [`UiCommand::FindCameras`], with their
    /// modes (or why they could not be listed).
    pub cameras: Option<Result<Vec<FoundCamera>, String>>,
    /// Frames the UI took from the pipeline and showed.
    pub frames_shown: u64,
    /// Frames the source made that were never shown: dropped by the capture
    /// thread while perception was busy, or replaced by a newer one before
    /// the UI painted.
    pub frames_dropped: u64,
    /// The newest frame's number, to count the gaps (per opened source).
    last_seq: Option<u64>,
    /// The player chose another source during this session of the app.
    switched: bool,
    /// When the source was (re)opened, or the newest processed frame left
    /// it; the capture thread's [`Pipeline::last_delivered`] may be newer.
    last_frame_at: Option<Instant>,
    pipeline: Option<Pipeline>,
    make_perceiver: Arc<dyn Fn() -> Box<dyn Perceiver> + Send + Sync>,
    wake: Arc<dyn Fn() + Send + Sync>,
}

/// A webcam and the modes it offers.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundCamera {
    pub index: u32,
    pub name: String,
    /// Empty when the modes could not be read (the camera's default is used).
    pub modes: Vec<crate::capture::camera::Mode>,
}

/// The source a typed path opens: a video file by its extension, else a
/// folder of photos.
pub fn recording_source(path: &std::path::Path) -> SourceChoice {
    let playback = Playback::default();
    if crate::capture::video::is_video(path) {
        SourceChoice::Video {
            path: path.to_path_buf(),
            playback,
        }
    } else {
        SourceChoice::Folder {
            dir: path.to_path_buf(),
            playback,
        }
    }
}

/// A live source with no frame for this long is said to have stopped.
pub const STALL_AFTER: Duration = Duration::from_secs(5);

/// "12 s", "3 min 05 s".
fn seconds(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// The wall-clock time of `at` (UTC, "21:14:03 UTC"), seen from `now`.
fn clock(at: Instant, now: Instant) -> String {
    let then = std::time::SystemTime::now()
        .checked_sub(now.saturating_duration_since(at))
        .unwrap_or(std::time::UNIX_EPOCH);
    let of_day = then
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() % 86_400);
    format!(
        "{:02}:{:02}:{:02} UTC",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

/// What a picture fault means to the player.
fn fault_text(fault: &PictureFault, now: Instant) -> String {
    match *fault {
        PictureFault::Dark { since } => format!(
            "Camera picture black since {} ({}): lens cap, lights out, or something over the \
             camera. The table lock and the figures are kept as last seen; nothing moves until \
             the picture is back.",
            clock(since, now),
            seconds(now - since)
        ),
        PictureFault::Frozen { since } => format!(
            "Camera picture frozen since {} ({}): the same picture over and over. Figures are \
             not moved from it; the game and the table lock are kept. Check the camera or \
             choose another source.",
            clock(since, now),
            seconds(now - since)
        ),
    }
}

/// Notices kept for the status line.
const NOTICES_KEPT: usize = 8;

impl AppLogic {
    /// Starts the pipeline on `source`. `wake` asks the UI to repaint.
    pub fn new(
        source: SourceChoice,
        make_perceiver: Arc<dyn Fn() -> Box<dyn Perceiver> + Send + Sync>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        let mut logic = Self {
            source_choice: source.clone(),
            status: SourceStatus::Opening,
            latest: None,
            stats: Stats::default(),
            selection: Selection::default(),
            terrain_choice: None,
            large_text: false,
            screenshot_requested: false,
            screenshot_dir: PathBuf::from(SCREENSHOT_DIR),
            notices: Vec::new(),
            session: None,
            bindings: BTreeMap::new(),
            games_dir: PathBuf::from(super::session::GAMES_DIR),
            follow_camera: true,
            scenarios: super::session::list_scenarios(&scenarios_dir()),
            rule_sets: crate::rules::Registry::builtin()
                .map(|r| r.names())
                .unwrap_or_default(),
            lens_wizard: super::lens_wizard::LensWizard::default(),
            cameras: None,
            frames_shown: 0,
            frames_dropped: 0,
            last_seq: None,
            switched: false,
            last_frame_at: None,
            pipeline: None,
            make_perceiver,
            wake,
        };
        logic.open(source);
        logic
    }

    /// Switches to another source; the game is kept.
    pub fn open(&mut self, source: SourceChoice) {
        self.pipeline = None;
        self.last_frame_at = Some(Instant::now());
        self.status = SourceStatus::Opening;
        self.source_choice = source.clone();
        match Pipeline::spawn(source.opener(), (self.make_perceiver)(), self.wake.clone()) {
            Ok(p) => self.pipeline = Some(p),
            Err(e) => {
                self.status = SourceStatus::Lost {
                    source: "(threads)".into(),
                    reason: format!("cannot start the capture threads: {e}"),
                    since: Instant::now(),
                }
            }
        }
    }

    pub fn notice(&mut self, text: impl Into<String>) {
        self.notices.push(text.into());
        if self.notices.len() > NOTICES_KEPT {
            self.notices.remove(0);
        }
    }

    /// Takes every event the pipeline has ready. Returns true when a new
    /// frame arrived.
    pub fn pump(&mut self) -> bool {
        self.lens_wizard.poll();
        let Some(pipeline) = &self.pipeline else {
            return false;
        };
        let mut new_frame = false;
        let events: Vec<PipelineEvent> = pipeline.events.try_iter().collect();
        for ev in events {
            match ev {
                PipelineEvent::Opened { source } => {
                    // A new source numbers its frames from 0 again.
                    self.last_seq = None;
                    if self.switched && self.session.is_some() {
                        self.notice(format!(
                            "opened {source}: the game is kept; the table lock is found again \
                             from this camera's picture"
                        ));
                    } else {
                        self.notice(format!("opened {source}"));
                    }
                    self.status = SourceStatus::Live { source };
                }
                PipelineEvent::Reconnected { source } => {
                    let away = match &self.status {
                        SourceStatus::Lost { since, .. } => {
                            format!(" after {}", seconds(Instant::now() - *since))
                        }
                        _ => String::new(),
                    };
                    self.notice(format!(
                        "camera back{away} ({source}): the game and the table lock were kept"
                    ));
                    self.status = SourceStatus::Live { source };
                    self.last_frame_at = Some(Instant::now());
                }
                PipelineEvent::Lost { source, reason } => {
                    self.notice(format!("lost {source}: {reason}"));
                    self.status = SourceStatus::Lost {
                        source,
                        reason,
                        since: Instant::now(),
                    };
                }
                PipelineEvent::Processed(p) => {
                    self.stats.detection.tick(p.processed_at);
                    self.stats.work_ms.push(p.perception.work_ms);
                    if let SourceStatus::Opening = self.status {
                        self.status = SourceStatus::Live {
                            source: p.frame.label.clone(),
                        };
                    }
                    self.last_frame_at = self.last_frame_at.max(Some(p.frame.captured_at));
                    self.count_frame(p.frame.seq, new_frame);
                    self.note_fault_change(p.fault.as_ref());
                    self.latest = Some(*p);
                    new_frame = true;
                }
            }
        }
        if new_frame {
            self.frames_shown += 1;
            self.follow_camera();
        }
        new_frame
    }

    /// A notice when the picture goes black or freezes, or comes back.
    fn note_fault_change(&mut self, fault: Option<&PictureFault>) {
        let before = self.latest.as_ref().and_then(|p| p.fault);
        let kind = |f: Option<&PictureFault>| f.map(std::mem::discriminant);
        if kind(before.as_ref()) == kind(fault) {
            return;
        }
        let now = Instant::now();
        let text = match (fault, before) {
            (Some(PictureFault::Dark { since }), _) => {
                format!("the camera picture went black at {}", clock(*since, now))
            }
            (Some(PictureFault::Frozen { since }), _) => {
                format!("the camera picture froze at {}", clock(*since, now))
            }
            (None, Some(PictureFault::Dark { since } | PictureFault::Frozen { since })) => {
                format!(
                    "camera picture back after {}: figures follow the camera again",
                    seconds(now - since)
                )
            }
            (None, None) => return,
        };
        self.notice(text);
    }

    /// Counts the frames lost before frame `seq`: the gap since the last
    /// one, and the frame `seq` replaces when the UI has not shown it yet.
    fn count_frame(&mut self, seq: u64, replaces_unshown: bool) {
        if let Some(last) = self.last_seq {
            self.frames_dropped += seq.saturating_sub(last + 1);
        }
        if replaces_unshown {
            self.frames_dropped += 1;
        }
        self.last_seq = Some(seq);
    }

    /// Where the newest frame sees the bound figures, when that differs
    /// from where the game has them: a position typed in (sigma 0) is
    /// always replaced, else a move of [`FOLLOW_MIN_MOVE_IN`] or a turn of
    /// [`FOLLOW_MIN_TURN_DEG`]. Figures not seen on this frame (held, under
    /// a hand) and frames without a table lock give nothing.
    pub fn observations(&self) -> Vec<Observed> {
        let (Some(s), Some(p)) = (&self.session, &self.latest) else {
            return Vec::new();
        };
        let Some(mapping) = &p.perception.lock.locked else {
            return Vec::new();
        };
        // A black or frozen picture shows the table as it was, not as it
        // is: it moves nothing.
        if p.fault.is_some() {
            return Vec::new();
        }
        let state = s.state();
        p.perception
            .figures
            .iter()
            // Only figures seen with confidence follow by themselves (an
            // uncertain one waits for the player).
            .filter(|f| super::overlay::is_certain(&f.detection))
            .filter_map(|f| {
                let id = self.bound(f.id)?;
                let g = state.figure(id)?;
                let d = &f.detection;
                let facing_deg = d.facing_deg.unwrap_or(g.placement.facing_deg);
                let moved = (d.center_in_table - g.placement.center_in_table).norm();
                let off = normalize_deg(facing_deg - g.placement.facing_deg);
                let turned = off.min(360.0 - off);
                let changed = g.placement.sigma_in == 0.0
                    || moved >= FOLLOW_MIN_MOVE_IN
                    || turned >= FOLLOW_MIN_TURN_DEG;
                changed.then(|| Observed {
                    figure: id,
                    center_in_table: d.center_in_table,
                    facing_deg,
                    sigma_in: position_sigma_in(mapping.residual_in, d.position_sigma_in),
                })
            })
            .collect()
    }

    /// Logs where the camera sees the bound figures (see
    /// [`Self::observations`]), when following the camera.
    fn follow_camera(&mut self) {
        if !self.follow_camera {
            return;
        }
        let seen = self.observations();
        if seen.is_empty() {
            return;
        }
        self.with_session("follow the camera", |s| s.observe(&seen).map(drop));
    }

    /// Records that the UI painted a frame at `now`, showing `latest`.
    pub fn painted(&mut self, paint_started: Instant, now: Instant) {
        self.stats.ui.tick(now);
        self.stats
            .paint_ms
            .push((now - paint_started).as_secs_f64() * 1e3);
        if let Some(p) = &self.latest {
            self.stats
                .overlay_latency_ms
                .push((now - p.frame.captured_at).as_secs_f64() * 1e3);
        }
    }

    /// Plays `session` in the app.
    pub fn set_session(&mut self, session: GameSession) {
        self.notice(format!(
            "game {} ({})",
            session.scenario_name,
            session.log_path.display()
        ));
        self.bindings = match super::session::load_bindings(&session.log_path) {
            Ok(b) => b,
            Err(e) => {
                self.notice(format!("bindings: {e:#}"));
                BTreeMap::new()
            }
        };
        self.session = Some(session);
    }

    /// The game figure a seen figure is bound to.
    pub fn bound(&self, track: u32) -> Option<FigureId> {
        self.bindings.get(&track).copied()
    }

    /// The seen figure bound to a game figure.
    pub fn track_of(&self, figure: FigureId) -> Option<u32> {
        self.bindings
            .iter()
            .find(|(_, f)| **f == figure)
            .map(|(t, _)| *t)
    }

    /// The terrain pieces of the newest frame the player has not said
    /// anything about yet (every one when no game is open).
    pub fn unmarked_terrain(&self) -> Vec<crate::vision::terrain::SeenTerrain> {
        let Some(p) = &self.latest else {
            return Vec::new();
        };
        p.perception
            .terrain
            .iter()
            .filter(|t| {
                self.session
                    .as_ref()
                    .is_none_or(|s| !crate::game::terrain::is_marked(s.state(), t.center_in()))
            })
            .cloned()
            .collect()
    }

    /// Marks the chosen seen piece as `CHOICES[choice]` says.
    fn mark_seen_terrain(&mut self, choice: usize) {
        let (Some(piece), Some((_, kinds))) = (
            self.terrain_choice.take(),
            crate::game::terrain::CHOICES.get(choice),
        ) else {
            self.notice("mark terrain: click a seen terrain piece first".to_owned());
            return;
        };
        let name = crate::game::terrain::seen_name(piece.center_in());
        self.with_session("mark terrain", |s| {
            s.mark_terrain(name, kinds.to_vec(), piece.outline_in.clone())
                .map(drop)
        });
    }

    fn with_session(&mut self, what: &str, f: impl FnOnce(&mut GameSession) -> anyhow::Result<()>) {
        let result = match self.session.as_mut() {
            Some(s) => f(s),
            None => Err(anyhow::anyhow!("no game: start or load one")),
        };
        if let Err(e) = result {
            self.notice(format!("{what}: {e:#}"));
        }
    }

    pub fn apply(&mut self, cmd: UiCommand) {
        match cmd {
            UiCommand::ClickFigure(id) => {
                self.selection.click(id);
                if let (Some(f), Some(s)) = (self.bound(id), self.session.as_mut()) {
                    s.click(f);
                }
            }
            UiCommand::ClickGameFigure(f) => {
                if let Some(s) = self.session.as_mut() {
                    s.click(f);
                }
            }
            UiCommand::SetAction(a) => {
                if let Some(s) = self.session.as_mut() {
                    s.action = a;
                }
            }
            UiCommand::OpenSource(source) => {
                self.notice(format!("opening {}", source.describe()));
                self.switched = true;
                self.open(source);
            }
            UiCommand::FindCameras => {
                self.cameras = Some(
                    crate::capture::camera::list_cameras()
                        .map(|cams| {
                            cams.into_iter()
                                .map(|c| FoundCamera {
                                    modes: crate::capture::camera::list_modes(c.index)
                                        .unwrap_or_default(),
                                    index: c.index,
                                    name: c.name,
                                })
                                .collect()
                        })
                        .map_err(|e| e.to_string()),
                );
            }
            UiCommand::ChooseSeenTerrain(k) => {
                self.terrain_choice = self.unmarked_terrain().get(k).cloned();
            }
            UiCommand::MarkSeenTerrain(choice) => self.mark_seen_terrain(choice),
            UiCommand::Roll => self.with_session("roll", |s| s.roll().map(drop)),
            UiCommand::RollTyped(faces) => {
                self.with_session("typed dice", |s| s.roll_typed(&faces).map(drop));
            }
            UiCommand::Undo => self.with_session("undo", GameSession::undo),
            UiCommand::EndPhase => self.with_session("end phase", |s| s.end_phase().map(drop)),
            UiCommand::NewGame(scenario) => {
                match GameSession::new_game(&scenario, &self.games_dir, rand::random()) {
                    Ok(s) => self.set_session(s),
                    Err(e) => self.notice(format!("new game: {e:#}")),
                }
            }
            UiCommand::LoadGame(log) => match GameSession::resume(&log, rand::random()) {
                Ok(s) => self.set_session(s),
                Err(e) => self.notice(format!("load game: {e:#}")),
            },
            UiCommand::SaveGame(to) => {
                let mut saved = None;
                self.with_session("save game", |s| {
                    s.save_copy(&to)?;
                    saved = Some(to.clone());
                    Ok(())
                });
                if let Some(to) = saved {
                    self.notice(format!("saved the game to {}", to.display()));
                }
            }
            UiCommand::Bind { track, figure } => {
                self.bindings.retain(|_, f| *f != figure);
                self.bindings.insert(track, figure);
                if let Some(s) = &self.session
                    && let Err(e) = super::session::save_bindings(&s.log_path, &self.bindings)
                {
                    self.notice(format!("bindings not saved: {e:#}"));
                }
                self.follow_camera();
            }
            UiCommand::Unbind { figure } => {
                self.bindings.retain(|_, f| *f != figure);
                if let Some(s) = &self.session
                    && let Err(e) = super::session::save_bindings(&s.log_path, &self.bindings)
                {
                    self.notice(format!("bindings not saved: {e:#}"));
                }
            }
            UiCommand::CaptureLensView => {
                let Some(p) = &self.latest else {
                    self.notice("lens: no frame yet");
                    return;
                };
                let (name, image) = (format!("view {}", p.frame.seq), p.frame.image.clone());
                if let Err(e) = self.lens_wizard.capture(&name, &image) {
                    self.notice(format!("lens: {e}"));
                }
            }
            UiCommand::SaveLens => match self.lens_wizard.save() {
                Ok(path) => self.notice(format!(
                    "lens saved to {} (open it with --camera)",
                    path.display()
                )),
                Err(e) => self.notice(format!("lens: {e:#}")),
            },
            UiCommand::ResetLens => self.lens_wizard.reset(),
            UiCommand::ToggleFollowCamera => {
                self.follow_camera = !self.follow_camera;
                self.follow_camera();
            }
            UiCommand::ClearSelection => {
                self.selection = Selection::default();
                if let Some(s) = self.session.as_mut() {
                    s.actor = None;
                    s.target = None;
                }
            }
            UiCommand::Relock => {
                if let Some(p) = &self.pipeline {
                    p.relock();
                    self.notice("table re-locked");
                }
            }
            UiCommand::Reconnect => {
                if let Some(p) = &self.pipeline {
                    p.reconnect();
                    self.notice("reconnecting...");
                }
            }
            UiCommand::ToggleLargeText => self.large_text = !self.large_text,
            UiCommand::SaveScreenshot => self.screenshot_requested = true,
        }
    }

    /// The figures on the newest frame.
    pub fn figures(&self) -> &[SeenFigure] {
        self.latest.as_ref().map_or(&[], |p| &p.perception.figures)
    }

    pub fn figure(&self, id: u32) -> Option<&SeenFigure> {
        self.figures().iter().find(|f| f.id == id)
    }

    /// How long the source has been live without a frame, when that is
    /// longer than [`STALL_AFTER`] (or three frame periods of a slow
    /// recording): an unplugged camera whose driver never says so.
    pub fn stalled_for(&self, now: Instant) -> Option<Duration> {
        let SourceStatus::Live { .. } = self.status else {
            return None;
        };
        // Timed from the newest frame the camera delivered, not the newest
        // the detector finished: a slow detector is not a stopped camera.
        let delivered = self.pipeline.as_ref().and_then(Pipeline::last_delivered);
        let last = self.last_frame_at.max(delivered)?;
        let period = match &self.source_choice {
            SourceChoice::Folder { playback, .. }
            | SourceChoice::Video { playback, .. }
            | SourceChoice::Failing { playback, .. } => playback.period(),
            SourceChoice::Camera(c) => Duration::from_secs_f64(
                1.0 / f64::from(c.mode.as_ref().map_or(30, |m| m.fps.max(1))),
            ),
            SourceChoice::Custom(_) => Duration::ZERO,
        };
        let quiet = now.saturating_duration_since(last);
        (quiet > STALL_AFTER.max(3 * period)).then_some(quiet)
    }

    /// What is wrong with the source or its picture, in a player's words,
    /// and whether a reconnect may help; `None` while all is well.
    pub fn source_trouble(&self, now: Instant) -> Option<(String, bool)> {
        if let SourceStatus::Lost {
            source,
            reason,
            since,
        } = &self.status
        {
            return Some((
                format!(
                    "Camera lost at {} ({} ago): {source} ({reason}). The game and the table \
                     lock are kept; plug the camera back in (it is tried again every {} s) or \
                     reconnect.",
                    clock(*since, now),
                    seconds(now - *since),
                    crate::capture::worker::RETRY_INTERVAL.as_secs()
                ),
                true,
            ));
        }
        if let Some(quiet) = self.stalled_for(now) {
            return Some((
                format!(
                    "No picture from the camera for {}: unplugged, or it stopped. The game and \
                     the table lock are kept; plug it back in or choose another source.",
                    seconds(quiet)
                ),
                true,
            ));
        }
        let fault = self.latest.as_ref()?.fault?;
        Some((fault_text(&fault, now), false))
    }

    /// How long the source has been lost, if it is.
    pub fn lost_for(&self, now: Instant) -> Option<Duration> {
        match &self.status {
            SourceStatus::Lost { since, .. } => Some(now - *since),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_choose_actor_then_target() {
        let mut s = Selection::default();
        s.click(3);
        assert_eq!(s.actor, Some(3));
        s.click(5);
        assert_eq!(s.target, Some(5));
        s.click(7);
        assert_eq!(s.target, Some(7), "a click on another figure retargets");
        s.click(7);
        assert_eq!(s.target, None, "a click on the target clears it");
        s.click(3);
        assert_eq!(s, Selection::default(), "a click on the actor clears all");
    }
}
