//! The game as the app plays it: a [`Game`] started from a scenario, its log
//! on disk (written by the game after every event, so the game autosaves
//! and a killed app resumes), the actor, action and target chosen in the
//! UI, the odds and number needed before rolling, dice rolled by Spotter or
//! typed in, and undo. No painting here.
//!
//! # Conventions
//! - Figures are [`FigureId`]s of the game state; positions are table
//!   inches in the table frame of `TABLE_KIT.md`.
//! - Game logs are JSON Lines files `<games dir>/<scenario>-<unix ms>.jsonl`;
//!   the newest one is the game to resume.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use rand::SeedableRng;
use rand::rngs::StdRng;

use std::collections::BTreeMap;

use crate::game::{Command, Event, FigureId, Game, GameState, Observed, Played, Scenario};
use crate::rules::Registry;
use crate::rules::dice::{RngDice, TypedDice};
use crate::rules::odds::NamedOdds;
use crate::rules::stand_to::event::Event as StandToEvent;

/// Where game logs go unless told otherwise.
pub const GAMES_DIR: &str = "games";
/// The scenario a new game starts from unless told otherwise.
pub const DEFAULT_SCENARIO: &str = "scenarios/dragoon.toml";
/// Seed of the throwaway dice used to preview an action: the preview shows
/// only what does not depend on the dice (measurements, number needed).
const PREVIEW_SEED: u64 = 0;

/// A measurement the rules will use, for the panel and the overlay, in the
/// rule set's own unit (it prints with it).
pub type Measurement = crate::core::Reading;

/// The range from the selected figure to one enemy.
#[derive(Debug, Clone, PartialEq)]
pub struct EnemyRange {
    pub target: FigureId,
    /// In the rule set's unit (`unit`) when the rules measured it, else
    /// table inches between base centres.
    pub range_in: f64,
    /// The unit of `range_in`.
    pub unit: crate::core::UnitKind,
    /// The weapon's range band, when a shot could be resolved now.
    pub band: Option<String>,
    pub too_close_to_call: bool,
}

impl EnemyRange {
    /// The range with its unit, e.g. `18.0"` or `38 cm`.
    pub fn range_text(&self) -> String {
        match self.unit {
            crate::core::UnitKind::Inch => format!("{:.1}\"", self.range_in),
            crate::core::UnitKind::Centimetre => format!("{:.0} cm", self.range_in),
        }
    }
}

/// What the player sees before rolling.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preview {
    pub odds: Vec<NamedOdds>,
    /// Number needed on the dice to hit, when the action is a shot.
    pub needed: Option<u32>,
    pub band: Option<String>,
    pub measurements: Vec<Measurement>,
    /// Why the action cannot be carried out now.
    pub refused: Option<String>,
}

/// The game being played in the app.
pub struct GameSession {
    pub game: Game,
    pub registry: Registry,
    pub log_path: PathBuf,
    pub scenario_name: String,
    pub actor: Option<FigureId>,
    pub target: Option<FigureId>,
    /// Index into [`GameSession::action_labels`].
    pub action: usize,
    rng: StdRng,
    /// The last preview, keyed by what it was computed from: the app asks
    /// for it every frame, the rules run once per (state, selection).
    preview_cache: Mutex<Option<(PreviewKey, Option<Preview>)>>,
    /// The last enemy ranges, keyed by (state revision, actor).
    ranges_cache: Mutex<Option<(RangesKey, Vec<EnemyRange>)>>,
    /// How many previews were computed (not served from the cache).
    previews_computed: AtomicUsize,
}

/// What enemy ranges depend on: the state (its revision) and the actor.
type RangesKey = (u64, FigureId);

/// What a preview depends on: the state (its revision) and the selection.
type PreviewKey = (u64, Option<FigureId>, Option<FigureId>, usize);

/// The newest game log in `dir`, if any.
pub fn newest_log(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
}

fn unix_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The file beside a game log that keeps which seen figures (track ids)
/// are bound to which game figures.
pub fn bindings_path(log_path: &Path) -> PathBuf {
    let mut name = log_path.as_os_str().to_owned();
    name.push(".bindings.json");
    PathBuf::from(name)
}

/// Saves the bindings of the game logged at `log_path`.
pub fn save_bindings(log_path: &Path, bindings: &BTreeMap<u32, FigureId>) -> anyhow::Result<()> {
    let path = bindings_path(log_path);
    let text = serde_json::to_string_pretty(bindings).context("writing the bindings")?;
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

/// The bindings saved with the game logged at `log_path` (none when the
/// file is missing).
pub fn load_bindings(log_path: &Path) -> anyhow::Result<BTreeMap<u32, FigureId>> {
    let path = bindings_path(log_path);
    if !path.exists() {
        return Ok(BTreeMap::new());
    }
    let text = crate::spec::read_text_capped(&path, crate::spec::MAX_DATA_FILE_BYTES)
        .with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a bindings file (delete it to start the bindings afresh)",
            path.display()
        )
    })
}

/// A scenario file offered by the New game picker.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioEntry {
    pub path: PathBuf,
    pub name: String,
    pub rule_set: String,
}

/// The scenario files in `dir` with their names and rule sets, sorted by
/// rule set then name. Files that cannot be read are left out (the picker
/// shows only what can be started; a typed path still reports the error).
pub fn list_scenarios(dir: &Path) -> Vec<ScenarioEntry> {
    #[derive(serde::Deserialize)]
    struct Head {
        name: String,
        rule_set: String,
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<ScenarioEntry> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter_map(|path| {
            let text =
                crate::spec::read_text_capped(&path, crate::spec::MAX_DATA_FILE_BYTES).ok()?;
            // Only the two head fields are read; the rest is checked when
            // the game starts.
            let value: toml::Table = toml::from_str(&text).ok()?;
            let head: Head = toml::Value::Table(value).try_into().ok()?;
            Some(ScenarioEntry {
                path,
                name: head.name,
                rule_set: head.rule_set,
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.rule_set, &a.name).cmp(&(&b.rule_set, &b.name)));
    out
}

impl GameSession {
    /// A new game from a scenario file, logged in `games_dir`.
    pub fn new_game(scenario: &Path, games_dir: &Path, seed: u64) -> anyhow::Result<Self> {
        let registry = Registry::builtin().context("loading the built-in rule sets")?;
        let sc = Scenario::load(scenario, &registry)?;
        let rules = registry
            .get(&sc.state.rule_set)
            .with_context(|| format!("unknown rule set {}", sc.state.rule_set))?;
        std::fs::create_dir_all(games_dir)
            .with_context(|| format!("creating {}", games_dir.display()))?;
        let stem = scenario
            .file_stem()
            .map_or_else(|| "game".into(), |s| s.to_string_lossy().into_owned());
        let log_path = games_dir.join(format!("{stem}-{}.jsonl", unix_ms()));
        let game = Game::new(sc.state, rules, Some(&log_path))?;
        Ok(Self::around(game, registry, log_path, sc.name, seed))
    }

    /// Resumes the game whose log is at `log_path`.
    pub fn resume(log_path: &Path, seed: u64) -> anyhow::Result<Self> {
        let registry = Registry::builtin().context("loading the built-in rule sets")?;
        let game = Game::resume(log_path, &registry)
            .with_context(|| format!("resuming {}", log_path.display()))?;
        let name = game.state().scenario.clone();
        Ok(Self::around(
            game,
            registry,
            log_path.to_path_buf(),
            name,
            seed,
        ))
    }

    /// Resumes the newest game in `games_dir`, or starts `scenario`.
    pub fn resume_or_new(scenario: &Path, games_dir: &Path, seed: u64) -> anyhow::Result<Self> {
        match newest_log(games_dir) {
            Some(log) => Self::resume(&log, seed),
            None => Self::new_game(scenario, games_dir, seed),
        }
    }

    fn around(
        game: Game,
        registry: Registry,
        log_path: PathBuf,
        scenario_name: String,
        seed: u64,
    ) -> Self {
        Self {
            game,
            registry,
            log_path,
            scenario_name,
            actor: None,
            target: None,
            action: 0,
            rng: StdRng::seed_from_u64(seed),
            preview_cache: Mutex::new(None),
            ranges_cache: Mutex::new(None),
            previews_computed: AtomicUsize::new(0),
        }
    }

    /// Saves a copy of the game log (the game itself keeps autosaving to
    /// its own log).
    pub fn save_copy(&self, to: &Path) -> anyhow::Result<()> {
        std::fs::copy(&self.log_path, to)
            .with_context(|| format!("copying {} to {}", self.log_path.display(), to.display()))?;
        Ok(())
    }

    pub fn state(&self) -> &GameState {
        self.game.state()
    }

    pub fn name(&self, id: FigureId) -> String {
        self.state()
            .figure(id)
            .map_or_else(|| format!("figure {}", id.0), |f| f.name.clone())
    }

    /// The click rule: the first figure is the actor, the next the target;
    /// a click on the actor clears both.
    pub fn click(&mut self, id: FigureId) {
        match (self.actor, self.target) {
            (Some(a), _) if a == id => {
                self.actor = None;
                self.target = None;
            }
            (Some(_), Some(t)) if t == id => self.target = None,
            (Some(_), _) => self.target = Some(id),
            (None, _) => self.actor = Some(id),
        }
    }

    /// The actions of the rule set for an actor and a target, by label.
    pub fn action_labels(&self) -> Vec<&'static str> {
        self.game.rules().target_actions()
    }

    /// The command the current choice makes, if complete.
    pub fn command(&self) -> Option<Command> {
        let (actor, target) = (self.actor?, self.target?);
        let labels = self.action_labels();
        let action = labels.get(self.action)?;
        self.game
            .rules()
            .target_command(self.state(), action, actor, target)
    }

    /// Odds, number needed and measurements of the chosen action, before
    /// rolling: computed once per (state, selection), then served from a
    /// cache (the app asks every frame).
    pub fn preview(&self) -> Option<Preview> {
        let key = (self.game.revision(), self.actor, self.target, self.action);
        let mut cache = self.preview_cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, p)) = cache.as_ref()
            && *k == key
        {
            return p.clone();
        }
        let p = self.compute_preview();
        self.previews_computed.fetch_add(1, Ordering::Relaxed);
        *cache = Some((key, p.clone()));
        p
    }

    /// How many previews the rules computed (the rest came from the cache).
    pub fn previews_computed(&self) -> usize {
        self.previews_computed.load(Ordering::Relaxed)
    }

    fn compute_preview(&self) -> Option<Preview> {
        let cmd = self.command()?;
        if let Err(e) = self.game.check(&cmd) {
            return Some(Preview {
                refused: Some(e.to_string()),
                ..Preview::default()
            });
        }
        let odds = match self.game.odds(&cmd) {
            Ok(o) => o,
            Err(e) => {
                return Some(Preview {
                    refused: Some(e.to_string()),
                    ..Preview::default()
                });
            }
        };
        let mut preview = Preview {
            odds,
            ..Preview::default()
        };
        // A dry resolve on throwaway dice: the state is not changed and
        // nothing is logged; only dice-independent facts are read from it.
        let mut dice = RngDice(StdRng::seed_from_u64(PREVIEW_SEED));
        if let Ok(events) = self.game.rules().resolve(self.state(), &cmd, &mut dice) {
            for e in events {
                match e {
                    Event::Measured(reading) => preview.measurements.push(reading),
                    Event::StandTo(StandToEvent::FireResolved { needed, band, .. }) => {
                        preview.needed.get_or_insert(needed);
                        preview.band.get_or_insert(band);
                    }
                    _ => {}
                }
            }
        }
        Some(preview)
    }

    /// Range from `actor` to every active enemy: the rules' own fire
    /// measurement (the rule set's first target action, its fire) and band
    /// where a shot could be resolved now, else the distance between base
    /// centres with no band.
    pub fn enemy_ranges(&self, actor: FigureId) -> Vec<EnemyRange> {
        let key = (self.game.revision(), actor);
        let mut cache = self.ranges_cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, r)) = cache.as_ref()
            && *k == key
        {
            return r.clone();
        }
        let ranges = self.compute_enemy_ranges(actor);
        *cache = Some((key, ranges.clone()));
        ranges
    }

    fn compute_enemy_ranges(&self, actor: FigureId) -> Vec<EnemyRange> {
        let state = self.state();
        let Some(me) = state.figure(actor) else {
            return Vec::new();
        };
        state
            .figures
            .iter()
            .filter(|f| f.side != me.side && f.active())
            .map(|f| {
                let rules = self.game.rules();
                let fire = rules.target_actions().first().copied();
                let events = fire
                    .and_then(|label| rules.target_command(state, label, actor, f.id))
                    .and_then(|cmd| {
                        let mut dice = RngDice(StdRng::seed_from_u64(PREVIEW_SEED));
                        rules.resolve(state, &cmd, &mut dice).ok()
                    })
                    .unwrap_or_default();
                let mut out = EnemyRange {
                    target: f.id,
                    range_in: (f.placement.center_in_table - me.placement.center_in_table).norm(),
                    unit: crate::core::UnitKind::Inch,
                    band: None,
                    too_close_to_call: false,
                };
                for e in events {
                    match e {
                        Event::Measured(reading) if out.band.is_none() => {
                            out.range_in = reading.value;
                            out.unit = reading.unit;
                            out.too_close_to_call = reading.too_close_to_call;
                        }
                        Event::StandTo(StandToEvent::FireResolved { band, .. }) => {
                            out.band = Some(band)
                        }
                        _ => {}
                    }
                }
                out
            })
            .collect()
    }

    /// Rolls the chosen action with Spotter's dice.
    pub fn roll(&mut self) -> anyhow::Result<Vec<Event>> {
        let cmd = self
            .command()
            .context("choose an actor and a target first")?;
        let mut dice = RngDice(&mut self.rng);
        Ok(self.game.execute(cmd, &mut dice)?)
    }

    /// Resolves the chosen action with dice typed in from the table, e.g.
    /// "4 6 2" (in the order the rules roll them).
    pub fn roll_typed(&mut self, faces: &str) -> anyhow::Result<Vec<Event>> {
        let cmd = self
            .command()
            .context("choose an actor and a target first")?;
        let faces: Vec<u32> = faces
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<u32>()
                    .with_context(|| format!("{s:?} is not a die face"))
            })
            .collect::<anyhow::Result<_>>()?;
        let mut dice = TypedDice::new(faces);
        Ok(self.game.execute(cmd, &mut dice)?)
    }

    /// Takes back the last player action, and the camera's placements
    /// logged after it (the camera places the figures again on its next
    /// frame).
    pub fn undo(&mut self) -> anyhow::Result<()> {
        while self.game.undo()?.observations().is_some() {}
        Ok(())
    }

    /// Places figures where the camera sees them, through the log.
    pub fn observe(&mut self, seen: &[Observed]) -> anyhow::Result<Vec<Event>> {
        let mut dice = RngDice(&mut self.rng);
        Ok(self.game.execute(Command::observe(seen), &mut dice)?)
    }

    /// What the rule set draws around `figure` (empty for rule sets
    /// without overlays).
    pub fn overlays(&self, figure: FigureId) -> Vec<crate::rules::overlay::OverlayShape> {
        self.game.rules().overlays(self.state(), figure)
    }

    /// The player says what a piece of terrain is (see
    /// [`crate::game::terrain::CHOICES`]): logged, and read by the rules
    /// like the scenario's terrain.
    pub fn mark_terrain(
        &mut self,
        name: String,
        kinds: Vec<crate::geometry::TerrainKind>,
        polygon_in: Vec<nalgebra::Point2<f64>>,
    ) -> anyhow::Result<Vec<Event>> {
        let mut dice = RngDice(&mut self.rng);
        let cmd = Command::MarkTerrain {
            name,
            kinds,
            polygon_in,
        };
        Ok(self.game.execute(cmd, &mut dice)?)
    }

    pub fn end_phase(&mut self) -> anyhow::Result<Vec<Event>> {
        let mut dice = RngDice(&mut self.rng);
        Ok(self.game.execute(Command::EndPhase, &mut dice)?)
    }

    /// Takes the rule set's action that opens a side's activation (Little
    /// Colonial Rules' card draw), when it has one the rules allow now.
    /// Returns whether one was taken.
    pub fn open_activation(&mut self) -> anyhow::Result<bool> {
        let rules = self.game.rules();
        let Some(cmd) = rules
            .actions()
            .iter()
            .filter(|a| a.opens_activation)
            .filter_map(|a| {
                rules
                    .parse_action(a.name, &a.preset_params(self.state())?)
                    .ok()
            })
            .find(|c| rules.check(self.state(), c).is_ok())
        else {
            return Ok(false);
        };
        let mut dice = RngDice(&mut self.rng);
        self.game.execute(cmd, &mut dice)?;
        Ok(true)
    }

    /// Whose turn, and which phase: "Turn 2, British: fire".
    pub fn turn_text(&self) -> String {
        let s = self.state();
        let phases = self.game.rules().phases();
        let side = s.sides.get(s.active_side).map_or("-", |x| x.name.as_str());
        let phase = phases.get(s.phase).map_or("-", String::as_str);
        format!("Turn {}, {side}: {phase}", s.turn)
    }

    /// The newest player action that was not undone (camera placements
    /// are not actions).
    pub fn last_played(&self) -> Option<&Played> {
        self.game
            .history()
            .iter()
            .rev()
            .find(|p| !p.undone && p.command.observations().is_none())
    }

    /// One line per command for the log panel, newest last.
    pub fn log_lines(&self) -> Vec<String> {
        self.game
            .history()
            .iter()
            .map(|p| {
                format!(
                    "{}. {}: {}{}",
                    p.n,
                    self.describe_command(&p.command),
                    self.describe_result(&p.events),
                    if p.undone { " (undone)" } else { "" }
                )
            })
            .collect()
    }

    /// A command in a few words: "fire: shooter Pte Carter; target Dervish
    /// 1; mode aimed", its parameters named as the rule set describes them
    /// (figures by their names).
    pub fn describe_command(&self, cmd: &Command) -> String {
        match cmd {
            Command::EndPhase => "end of phase".into(),
            Command::Observe { figures: seen } => {
                let list: Vec<String> = seen
                    .iter()
                    .map(|o| {
                        format!(
                            "{} at ({:.1}, {:.1})",
                            self.name(o.figure),
                            o.center_in_table.x,
                            o.center_in_table.y
                        )
                    })
                    .collect();
                format!("camera: {}", list.join(", "))
            }
            Command::StandTo(_)
            | Command::VolleyFire(_)
            | Command::SoldiersInTime(_)
            | Command::LittleColonial(_) => self
                .game
                .rules()
                .command_summary(self.state(), cmd)
                .unwrap_or_else(|| self.describe_action(cmd)),
            Command::MarkTerrain { name, kinds, .. } => {
                let kinds: Vec<String> = kinds.iter().map(|k| format!("{k:?}")).collect();
                if kinds.is_empty() {
                    format!("terrain: {name} is not terrain")
                } else {
                    format!("terrain: {name} is {}", kinds.join(", "))
                }
            }
            Command::ClearTerrain { name } => format!("terrain: {name} taken off"),
            other => format!("{other:?}"),
        }
    }

    /// The figure an action is aimed at (where its result is drawn): its
    /// first parameter in the target's role, as the rule set describes it.
    pub fn action_target(&self, cmd: &Command) -> Option<FigureId> {
        use crate::rules::describe::{ParamKind, Role};
        let (spec, params) = self.spec_and_params(cmd);
        let spec = spec?;
        spec.params
            .iter()
            .filter(|p| p.role == Role::Target)
            .find_map(|p| {
                let v = params.get(p.name)?;
                let first = v.as_array().and_then(|a| a.first()).unwrap_or(v);
                match p.kind {
                    ParamKind::FigureNumber | ParamKind::FigureNumbers => first
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .map(FigureId),
                    ParamKind::Figure | ParamKind::Figures | ParamKind::UnitFigures => {
                        self.state().figure_named(first.as_str()?).map(|f| f.id)
                    }
                    _ => None,
                }
            })
    }

    /// A rule set's action's description (by its name) and its serialised
    /// parameters (null when it has none).
    fn spec_and_params(
        &self,
        cmd: &Command,
    ) -> (
        Option<crate::rules::describe::ActionSpec>,
        serde_json::Value,
    ) {
        let action = crate::rules::action::action_name(cmd);
        let spec = self
            .game
            .rules()
            .actions()
            .into_iter()
            .find(|a| a.name == action);
        let params = serde_json::to_value(cmd)
            .ok()
            .and_then(|v| v.get("params").cloned())
            .unwrap_or_default();
        (spec, params)
    }

    /// A rule set's action from its serialised parameters.
    fn describe_action(&self, cmd: &Command) -> String {
        use crate::rules::describe::ParamKind;
        let action = crate::rules::action::action_name(cmd);
        let (spec, params) = self.spec_and_params(cmd);
        let kinds: std::collections::BTreeMap<&str, ParamKind> = spec
            .map(|a| a.params.into_iter().map(|p| (p.name, p.kind)).collect())
            .unwrap_or_default();
        let text = |v: &serde_json::Value, kind: Option<&ParamKind>| match (v, kind) {
            (serde_json::Value::Number(n), Some(ParamKind::FigureNumber)) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map_or_else(|| n.to_string(), |n| self.name(FigureId(n))),
            (serde_json::Value::String(t), _) => t.clone(),
            (other, _) => other.to_string(),
        };
        let fields: Vec<String> = params
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(_, v)| {
                        !matches!(v, serde_json::Value::Bool(false) | serde_json::Value::Null)
                    })
                    .map(|(k, v)| {
                        let kind = kinds.get(k.as_str());
                        let one = match kind {
                            Some(ParamKind::FigureNumbers) => Some(&ParamKind::FigureNumber),
                            k => k,
                        };
                        match v {
                            serde_json::Value::Bool(true) => k.clone(),
                            serde_json::Value::Array(a) => format!(
                                "{k} {}",
                                a.iter()
                                    .map(|x| text(x, one))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            v => format!("{k} {}", text(v, kind)),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        if fields.is_empty() {
            action
        } else {
            format!("{action}: {}", fields.join("; "))
        }
    }

    /// The result of a command in a few words.
    pub fn describe_result(&self, events: &[Event]) -> String {
        let mut parts = Vec::new();
        for e in events {
            match e {
                Event::Rolled { purpose, dice, .. } => {
                    let faces: Vec<String> = dice.iter().map(|d| d.face.to_string()).collect();
                    parts.push(format!("{purpose} {}", faces.join("+")));
                }
                Event::StandTo(StandToEvent::FireResolved {
                    needed,
                    on_target,
                    saved,
                    ..
                }) => parts.push(format!(
                    "{needed}+ needed: {}",
                    match (on_target, saved) {
                        (false, _) => "off target",
                        (true, true) => "on target, saved",
                        (true, false) => "HIT",
                    }
                )),
                Event::Note { text } => parts.push(text.clone()),
                _ => {}
            }
        }
        if parts.is_empty() {
            "done".into()
        } else {
            parts.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_SCENARIO)
    }

    #[test]
    fn preview_shows_the_dragoon_example_then_roll_logs_and_undo_takes_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = GameSession::new_game(&scenario(), dir.path(), 7).unwrap();
        let hobbs = s.state().figure_named("Trooper Hobbs").unwrap().id;
        let warrior = s.state().figure_named("Hadendowa warrior").unwrap().id;
        s.click(hobbs);
        s.click(warrior);
        let refused = s.preview().unwrap().refused;
        assert!(
            refused.is_some(),
            "the turn starts with the non-combat phase"
        );
        s.end_phase().unwrap();
        assert!(s.turn_text().contains("fire"), "{}", s.turn_text());
        let computed = s.previews_computed();
        let p = s.preview().unwrap();
        assert_eq!(p.refused, None);
        // RULES.md: carbine at 18 in is medium range, 8+ to hit.
        assert_eq!(p.needed, Some(8));
        assert!(!p.odds.is_empty());
        // Once per (state, selection): painting again asks the cache.
        assert_eq!(s.preview(), Some(p));
        assert_eq!(s.previews_computed(), computed + 1);
        s.roll().unwrap();
        s.preview();
        assert_eq!(
            s.previews_computed(),
            computed + 2,
            "a new state, a new preview"
        );
        assert_eq!(s.log_lines().len(), 2);
        s.undo().unwrap();
        assert!(s.log_lines()[1].ends_with("(undone)"));
    }

    /// A game of `scenario`, its first figure of each side clicked as actor
    /// and target, and the phase advanced to `phase` (`""`: the first).
    fn clicked_in_phase(scenario: &str, phase: &str, dir: &Path) -> GameSession {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(scenario);
        let mut s = GameSession::new_game(&path, dir, 11).unwrap();
        let first = |side| {
            s.state()
                .figures
                .iter()
                .find(|f| f.side == side)
                .unwrap()
                .id
        };
        let (a, t) = (first(0), first(1));
        s.click(a);
        s.click(t);
        for _ in 0..8 {
            if s.turn_text().contains(phase) {
                break;
            }
            s.end_phase().unwrap();
        }
        assert!(s.turn_text().contains(phase), "{}", s.turn_text());
        s
    }

    #[test]
    fn every_rule_set_offers_its_own_actions_with_odds_before_the_roll() {
        let dir = tempfile::tempdir().unwrap();
        // Volley Fire!: the section fires at the Hadendowa as a unit.
        let mut vf = clicked_in_phase("scenarios/vf-sudan-patrol.toml", "fire", dir.path());
        assert_eq!(
            vf.action_labels(),
            vec!["Unit fires", "Unit charges", "Unit fights"]
        );
        let cmd = vf.command().unwrap();
        assert!(matches!(&cmd, Command::VolleyFire(a) if a.name() == "fire"));
        let p = vf.preview().unwrap();
        assert_eq!(p.refused, None);
        assert!(!p.odds.is_empty());
        vf.roll().unwrap();
        let lines = vf.log_lines();
        // Both sides' move phases come before the one fire phase.
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[2].starts_with("3. fire: unit 1st Section; target Hadendowa:"),
            "{lines:?}"
        );
        vf.undo().unwrap();

        // Little Colonial Rules and Soldiers in Time name their actions;
        // each is a command of its own rule set.
        for (scenario, labels) in [
            (
                "scenarios/lcr-baler.toml",
                vec!["Fire", "Formation fire", "Close combat"],
            ),
            (
                "scenarios/sit-skirmish.toml",
                vec!["Fire", "Snap fire", "Melee", "Horse impact"],
            ),
        ] {
            // The first phase, whatever it is.
            let s = clicked_in_phase(scenario, "", dir.path());
            assert_eq!(s.action_labels(), labels);
            let cmd = s.command().unwrap();
            assert!(
                crate::rules::action::action_name(&cmd) == "fire"
                    && !matches!(cmd, Command::StandTo(_)),
                "{cmd:?}"
            );
            // Whatever the phase, the preview answers: odds, or why not.
            let p = s.preview().unwrap();
            assert!(p.refused.is_some() || !p.odds.is_empty());
        }
    }

    #[test]
    fn the_camera_places_figures_through_the_log_and_undo_skips_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = GameSession::new_game(&scenario(), dir.path(), 3).unwrap();
        let hobbs = s.state().figure_named("Trooper Hobbs").unwrap().id;
        let warrior = s.state().figure_named("Hadendowa warrior").unwrap().id;
        s.click(hobbs);
        s.click(warrior);
        s.end_phase().unwrap();
        // Seen 10 in nearer: short range now, 6+ to hit (carbine 12 in).
        let seen = Observed {
            figure: hobbs,
            center_in_table: nalgebra::Point2::new(20.0, 20.0),
            facing_deg: 370.0,
            sigma_in: 0.04,
        };
        s.observe(&[seen]).unwrap();
        let p = &s.state().figure(hobbs).unwrap().placement;
        assert_eq!(p.center_in_table, seen.center_in_table);
        assert!((p.facing_deg - 10.0).abs() < 1e-9);
        assert_eq!(p.sigma_in, 0.04);
        assert_eq!(s.preview().unwrap().needed, Some(6));
        assert!(s.log_lines()[1].contains("camera: Trooper Hobbs at (20.0, 20.0)"));
        // Undo takes back the end of the phase and the placement after it.
        s.undo().unwrap();
        assert_eq!(s.state().phase, 0);
        assert_eq!(
            s.state().figure(hobbs).unwrap().placement.center_in_table,
            nalgebra::Point2::new(10.0, 20.0)
        );
        // Placements survive a restart.
        s.observe(&[seen]).unwrap();
        let before = s.state().clone();
        let log = s.log_path.clone();
        drop(s);
        let again = GameSession::resume(&log, 4).unwrap();
        assert_eq!(again.state(), &before);
    }

    #[test]
    fn bindings_are_saved_beside_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("g.jsonl");
        assert!(load_bindings(&log).unwrap().is_empty());
        let b = BTreeMap::from([(3_u32, FigureId(1)), (7, FigureId(0))]);
        save_bindings(&log, &b).unwrap();
        assert_eq!(load_bindings(&log).unwrap(), b);
    }

    #[test]
    fn the_picker_lists_every_scenario_with_its_rule_set() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let list = list_scenarios(&dir);
        let dragoon = list
            .iter()
            .find(|e| e.path.ends_with("dragoon.toml"))
            .unwrap();
        assert_eq!(dragoon.rule_set, "stand-to");
        let registry = Registry::builtin().unwrap();
        for e in &list {
            assert!(
                registry.get(&e.rule_set).is_some(),
                "{}: {}",
                e.path.display(),
                e.rule_set
            );
        }
        assert!(list.len() >= 4);
    }

    #[test]
    fn a_new_session_resumes_the_newest_log() {
        let dir = tempfile::tempdir().unwrap();
        let before = {
            let mut s = GameSession::new_game(&scenario(), dir.path(), 1).unwrap();
            let hobbs = s.state().figure_named("Trooper Hobbs").unwrap().id;
            let warrior = s.state().figure_named("Hadendowa warrior").unwrap().id;
            s.click(hobbs);
            s.click(warrior);
            s.end_phase().unwrap();
            s.roll_typed("6 5 3 1 2 2").unwrap();
            s.state().clone()
            // Dropped without saving: the log was written event by event.
        };
        let s = GameSession::resume_or_new(&scenario(), dir.path(), 2).unwrap();
        assert_eq!(s.state(), &before);
    }
}
