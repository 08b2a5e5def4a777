//! Scenario files (`scenarios/*.toml`): table, terrain, sides, figures and
//! the rule set, so that a game can be played and tested without a camera.
//!
//! # Conventions
//! Positions are base centres in table inches (table frame of
//! `TABLE_KIT.md`); `facing_deg` counter-clockwise from +x. Errors name the
//! file, the line and the field.

use std::collections::BTreeMap;
use std::path::Path;

use nalgebra::{Point2, Rotation2, Vector2};
use serde::Deserialize;
use toml::Spanned;

use super::state::{Figure, FigureId, GameState, Pace, Rank, Side, SideKind, TableSize, Unit};
use crate::core::TurnClock;
use crate::geometry::{BaseShape, Placement, Scale, TerrainArea, TerrainKind};
use crate::rules::{FigureRules, FigureStart, GameRules, Registry, RuleSet, SideRules, UnitRules};
use crate::spec::{SourceFile, SpecError, SpecProblem};
use crate::vision::BaseKind;

/// Errors loading a scenario.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Spec(#[from] SpecError),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    width_in: f64,
    depth_in: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTerrain {
    name: String,
    kinds: Vec<TerrainKind>,
    polygon_in: Spanned<Vec<[f64; 2]>>,
}

impl RawTerrain {
    fn area(self) -> TerrainArea {
        TerrainArea {
            name: self.name,
            kinds: self.kinds,
            polygon_in: self
                .polygon_in
                .into_inner()
                .into_iter()
                .map(|[x, y]| Point2::new(x, y))
                .collect(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    name: Spanned<String>,
    kind: SideKind,
    #[serde(default)]
    preservation_limit: Option<u32>,
    /// Instead of a limit: the share of casualties the referee accepts; the
    /// rule set turns it into a limit for the side's men.
    #[serde(default)]
    accepted_casualties_percent: Option<Spanned<u32>>,
    /// Rule-set values of the side (e.g. `colour = "red"`).
    #[serde(default)]
    status: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFigure {
    name: Spanned<String>,
    rank: Rank,
    side: Spanned<String>,
    #[serde(default)]
    leader: bool,
    weapon: Spanned<String>,
    melee_weapon: Spanned<String>,
    #[serde(default)]
    shield: bool,
    experience: Spanned<u8>,
    x_in: Spanned<f64>,
    y_in: Spanned<f64>,
    facing_deg: Spanned<f64>,
    base: BaseKind,
    #[serde(default)]
    mount_speed: Option<Spanned<String>>,
    /// How he starts, kept by the rule sets that use it (Stand To!).
    #[serde(default)]
    pace: Option<Pace>,
    #[serde(default)]
    prone: Option<bool>,
    #[serde(default)]
    concealed: bool,
    #[serde(default)]
    loaded: bool,
    #[serde(default)]
    ammo: Option<u32>,
    /// Rule-set values of the figure (e.g. `armour = "3"`).
    #[serde(default)]
    status: BTreeMap<String, String>,
    /// Name of the unit the figure belongs to (listed after the unit's
    /// generated figures).
    #[serde(default)]
    unit: Option<Spanned<String>>,
}

/// A unit: a block of `count` identical figures generated in ranks of
/// `frontage` (named "<unit> 1", "<unit> 2" ...), plus any `[[figure]]`
/// that names the unit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnit {
    name: Spanned<String>,
    side: Spanned<String>,
    formation: String,
    /// Figures per rank (0: one rank).
    #[serde(default)]
    frontage: u32,
    #[serde(default)]
    count: u32,
    /// Centre of the front rank.
    x_in: f64,
    y_in: f64,
    facing_deg: f64,
    /// Centre-to-centre distance between generated figures.
    #[serde(default = "default_spacing_in")]
    spacing_in: f64,
    #[serde(default = "default_rank")]
    rank: Rank,
    #[serde(default)]
    weapon: String,
    #[serde(default)]
    melee_weapon: String,
    #[serde(default = "default_experience")]
    experience: u8,
    #[serde(default = "default_base")]
    base: BaseKind,
    #[serde(default)]
    status: BTreeMap<String, String>,
    /// Status values of the unit itself.
    #[serde(default)]
    unit_status: BTreeMap<String, String>,
}

/// Generated unit positions are rounded to 1 / this many inches.
const GENERATED_STEPS_PER_IN: f64 = 1e6;
/// Largest table side a scenario may give, inches.
const MAX_TABLE_SIDE_IN: f64 = 10_000.0;
/// Largest facing a scenario may give, degrees either way.
const MAX_FACING_DEG: f64 = 720.0;
/// Largest position uncertainty a scenario may give, inches.
const MAX_POSITION_SIGMA_IN: f64 = 100.0;
/// Most figures one `[[unit]]` may generate.
const MAX_UNIT_COUNT: u32 = 1_000;
/// Largest spacing between a unit's figures, inches.
const MAX_SPACING_IN: f64 = 100.0;

fn default_spacing_in() -> f64 {
    1.0
}
fn default_rank() -> Rank {
    Rank::Private
}
fn default_experience() -> u8 {
    1
}
fn default_base() -> BaseKind {
    BaseKind::Foot
}

/// What the referee decides before the game, where the rules let him.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawReferee {
    /// The side that takes the first turn, instead of the rule set's.
    #[serde(default)]
    first_side: Option<Spanned<String>>,
    /// Sides of green units: the side's status gets `green = "true"` (Stand
    /// To!: their experience rolls lose a point).
    #[serde(default)]
    green_sides: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: String,
    #[serde(default)]
    description: String,
    rule_set: Spanned<String>,
    #[serde(default)]
    scale: Scale,
    /// 1-sigma uncertainty of positions typed into the file, inches.
    #[serde(default)]
    position_sigma_in: f64,
    table: RawTable,
    #[serde(default)]
    terrain: Vec<RawTerrain>,
    side: Vec<RawSide>,
    #[serde(default)]
    unit: Vec<RawUnit>,
    #[serde(default)]
    figure: Vec<RawFigure>,
    #[serde(default)]
    referee: RawReferee,
}

impl RawUnit {
    /// The generated figures, front rank first, left to right seen from
    /// behind the unit.
    fn figures(&self) -> Vec<RawFigure> {
        let forward = Rotation2::new(self.facing_deg.to_radians()) * Vector2::new(1.0, 0.0);
        let right = Vector2::new(forward.y, -forward.x);
        let per_rank = if self.frontage == 0 {
            self.count.max(1)
        } else {
            self.frontage
        };
        let front = Point2::new(self.x_in, self.y_in);
        (0..self.count)
            .map(|k| {
                let (row, col) = (k / per_rank, k % per_rank);
                let across = (f64::from(col) - f64::from(per_rank - 1) / 2.0) * self.spacing_in;
                let p = front + right * across - forward * (f64::from(row) * self.spacing_in);
                // Kept to a micro-inch so that the short decimal survives the
                // JSON game log exactly.
                let q = |v: f64| (v * GENERATED_STEPS_PER_IN).round() / GENERATED_STEPS_PER_IN;
                let p = Point2::new(q(p.x), q(p.y));
                let span = self.name.span();
                RawFigure {
                    name: Spanned::new(span.clone(), format!("{} {}", self.name.get_ref(), k + 1)),
                    rank: self.rank,
                    side: Spanned::new(span.clone(), self.side.get_ref().clone()),
                    leader: false,
                    weapon: Spanned::new(span.clone(), self.weapon.clone()),
                    melee_weapon: Spanned::new(span.clone(), self.melee_weapon.clone()),
                    shield: false,
                    experience: Spanned::new(span.clone(), self.experience),
                    x_in: Spanned::new(span.clone(), p.x),
                    y_in: Spanned::new(span.clone(), p.y),
                    facing_deg: Spanned::new(span.clone(), self.facing_deg),
                    base: self.base,
                    mount_speed: None,
                    pace: None,
                    prone: None,
                    concealed: false,
                    loaded: false,
                    ammo: None,
                    status: self.status.clone(),
                    unit: Some(Spanned::new(span.clone(), self.name.get_ref().clone())),
                }
            })
            .collect()
    }
}

fn problem(line: Option<usize>, field: String, message: String) -> SpecProblem {
    SpecProblem {
        line,
        field,
        message,
    }
}

fn facing_problem(v: f64) -> Option<String> {
    (!(v.is_finite() && v.abs() <= MAX_FACING_DEG))
        .then(|| format!("{v}: a facing is degrees from -{MAX_FACING_DEG} to {MAX_FACING_DEG}"))
}

/// Checks the numbers serde cannot bound: the table, the uncertainty, each
/// figure's and unit's position and facing, terrain points. Returns, per
/// unit, whether its figures can be generated.
fn check_numbers(
    src: &SourceFile,
    raw: &RawScenario,
    problems: &mut Vec<SpecProblem>,
) -> Vec<bool> {
    for (name, v) in [
        ("table.width_in", raw.table.width_in),
        ("table.depth_in", raw.table.depth_in),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= MAX_TABLE_SIDE_IN) {
            problems.push(problem(
                src.line_of_key(name),
                name.into(),
                format!("{v}: table sides must be positive inches, at most {MAX_TABLE_SIDE_IN}"),
            ));
        }
    }
    let sigma = raw.position_sigma_in;
    if !(sigma.is_finite() && (0.0..=MAX_POSITION_SIGMA_IN).contains(&sigma)) {
        problems.push(problem(
            src.line_of_key("position_sigma_in"),
            "position_sigma_in".into(),
            format!("{sigma}: an uncertainty is 0 to {MAX_POSITION_SIGMA_IN} inches"),
        ));
    }
    for (i, f) in raw.figure.iter().enumerate() {
        if let Some(m) = facing_problem(*f.facing_deg.get_ref()) {
            let line = Some(src.line_of(f.facing_deg.span().start));
            problems.push(problem(line, format!("figure[{i}].facing_deg"), m));
        }
    }
    let mut usable = Vec::new();
    for (i, u) in raw.unit.iter().enumerate() {
        let line = Some(src.line_of(u.name.span().start));
        let field = |x: &str| format!("unit[{i}].{x}");
        let mut found = Vec::new();
        if let Some(m) = facing_problem(u.facing_deg) {
            found.push((field("facing_deg"), m));
        }
        for (name, v) in [("x_in", u.x_in), ("y_in", u.y_in)] {
            if !v.is_finite() {
                found.push((field(name), format!("{v} is not a position in inches")));
            }
        }
        if !(u.spacing_in.is_finite() && u.spacing_in > 0.0 && u.spacing_in <= MAX_SPACING_IN) {
            found.push((
                field("spacing_in"),
                format!(
                    "{}: spacing is positive inches, at most {MAX_SPACING_IN}",
                    u.spacing_in
                ),
            ));
        }
        if u.count > MAX_UNIT_COUNT || u.frontage > MAX_UNIT_COUNT {
            found.push((
                field("count"),
                format!("a unit has at most {MAX_UNIT_COUNT} figures (count and frontage)"),
            ));
        }
        usable.push(found.is_empty());
        problems.extend(found.into_iter().map(|(f, m)| problem(line, f, m)));
    }
    for (i, t) in raw.terrain.iter().enumerate() {
        if t.polygon_in
            .get_ref()
            .iter()
            .flatten()
            .any(|v| !v.is_finite())
        {
            problems.push(problem(
                Some(src.line_of(t.polygon_in.span().start)),
                format!("terrain[{i}].polygon_in"),
                "every point must be finite inches".into(),
            ));
        }
    }
    usable
}

/// A checked scenario: its description and the initial game state.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub state: GameState,
}

impl Scenario {
    /// Loads and checks a scenario file against the registry's rule sets.
    pub fn load(path: &Path, registry: &Registry) -> Result<Self, ScenarioError> {
        Self::from_source(&SourceFile::read(path)?, registry)
    }

    /// Parses and checks; every problem is reported at once.
    pub fn from_source(src: &SourceFile, registry: &Registry) -> Result<Self, ScenarioError> {
        let mut raw: RawScenario = src.parse_toml()?;
        let mut problems = Vec::new();
        // Numbers first: a unit whose numbers are unusable generates no
        // figures (its own field is named once, not each figure's position).
        let usable = check_numbers(src, &raw, &mut problems);
        // Units' generated figures come first, in unit order.
        let mut generated: Vec<RawFigure> = raw
            .unit
            .iter()
            .zip(&usable)
            .filter(|(_, ok)| **ok)
            .flat_map(|(u, _)| u.figures())
            .collect();
        generated.append(&mut raw.figure);
        raw.figure = generated;
        let rules = registry.get(raw.rule_set.get_ref());
        let mut b = Build {
            src,
            rules: rules.as_deref(),
            problems,
        };
        b.check_rule_set_and_terrain(&raw, registry);
        let sides = b.sides(&raw);
        let figures: Vec<Figure> = raw
            .figure
            .iter()
            .enumerate()
            .map(|(i, f)| b.figure(&raw, &sides, i, f))
            .collect();
        let units = b.units(&raw, &sides);
        if !b.problems.is_empty() {
            return Err(src.error(b.problems).into());
        }
        let sides = preservation_limits(&raw, sides, &figures, b.rules);
        let mut scenario = Self {
            name: raw.name.clone(),
            description: raw.description,
            state: GameState {
                rule_set: raw.rule_set.into_inner(),
                scenario: raw.name,
                scale: raw.scale,
                table: TableSize {
                    width_in: raw.table.width_in,
                    depth_in: raw.table.depth_in,
                },
                terrain: raw.terrain.into_iter().map(RawTerrain::area).collect(),
                sides,
                figures,
                turn: START_CLOCK.turn,
                active_side: START_CLOCK.active_side,
                phase: START_CLOCK.phase,
                units,
                decks: Vec::new(),
                rules: GameRules::None,
            },
        };
        if let Some(r) = rules.as_ref() {
            r.prepare(&mut scenario.state)
                .map_err(|e| src.error(vec![src.problem(None, "rule_set", e.to_string())]))?;
        }
        Ok(scenario)
    }
}

/// Where every game starts: turn 1, the first side, the first phase.
const START_CLOCK: TurnClock = TurnClock {
    turn: 1,
    active_side: 0,
    phase: 0,
};

/// A scenario being built: the file, its rule set and the problems found
/// so far (every problem is reported at once).
struct Build<'a> {
    src: &'a SourceFile,
    rules: Option<&'a dyn RuleSet>,
    problems: Vec<SpecProblem>,
}

impl Build<'_> {
    fn push(&mut self, span: Option<std::ops::Range<usize>>, field: String, message: String) {
        self.problems.push(self.src.problem(span, field, message));
    }

    /// The rule set is known; every terrain area has three points.
    fn check_rule_set_and_terrain(&mut self, raw: &RawScenario, registry: &Registry) {
        if self.rules.is_none() {
            self.push(
                Some(raw.rule_set.span()),
                "rule_set".into(),
                format!(
                    "unknown rule set `{}` (known: {})",
                    raw.rule_set.get_ref(),
                    registry.names().join(", ")
                ),
            );
        }
        for (i, t) in raw.terrain.iter().enumerate() {
            if t.polygon_in.get_ref().len() < 3 {
                self.push(
                    Some(t.polygon_in.span()),
                    format!("terrain[{i}].polygon_in"),
                    "an area needs at least three points".into(),
                );
            }
        }
    }

    /// The sides, the one that moves first first (the referee's choice, or
    /// the rule set's kind), each with its typed status.
    fn sides(&mut self, raw: &RawScenario) -> Vec<Side> {
        let first = self.rules.and_then(|r| r.first_side_kind());
        let mut side_order: Vec<usize> = (0..raw.side.len()).collect();
        let referee = &raw.referee;
        for name in referee.first_side.iter().chain(&referee.green_sides) {
            if !raw.side.iter().any(|s| s.name.get_ref() == name.get_ref()) {
                self.push(
                    Some(name.span()),
                    "referee".into(),
                    format!("no side named `{}`", name.get_ref()),
                );
            }
        }
        match &referee.first_side {
            // The referee rules otherwise: his side goes first.
            Some(name) => side_order.sort_by_key(|&i| raw.side[i].name.get_ref() != name.get_ref()),
            None => side_order.sort_by_key(|&i| Some(raw.side[i].kind) != first),
        }
        let sides: Vec<Side> = side_order.iter().map(|&i| self.side(raw, i)).collect();
        for (i, s) in raw.side.iter().enumerate() {
            if raw.side[..i]
                .iter()
                .any(|o| o.name.get_ref() == s.name.get_ref())
            {
                self.push(
                    Some(s.name.span()),
                    format!("side[{i}].name"),
                    "side named twice".into(),
                );
            }
        }
        if sides.is_empty() {
            self.push(None, "side".into(), "at least one side is needed".into());
        }
        sides
    }

    /// Side `i` of the file; the referee's `green_sides` arrive in its
    /// status as `green = "true"`.
    fn side(&mut self, raw: &RawScenario, i: usize) -> Side {
        let raw_side = &raw.side[i];
        let mut status = raw_side.status.clone();
        if raw
            .referee
            .green_sides
            .iter()
            .any(|g| g.get_ref() == raw_side.name.get_ref())
        {
            status.insert("green".into(), "true".into());
        }
        let typed = match self.rules.map(|r| r.side_status(&status)) {
            Some(Err(e)) => {
                self.push(None, format!("side[{i}].status"), e);
                SideRules::None
            }
            Some(Ok(t)) => t,
            None => SideRules::None,
        };
        Side {
            name: raw_side.name.get_ref().clone(),
            kind: raw_side.kind,
            preservation_limit: raw_side.preservation_limit,
            rules: typed,
        }
    }

    /// Figure `i`: its name, side, weapons, experience and position are
    /// checked, its mount speed, status and start keys read.
    fn figure(&mut self, raw: &RawScenario, sides: &[Side], i: usize, f: &RawFigure) -> Figure {
        let field = |x: &str| format!("figure[{i}].{x}");
        if raw.figure[..i]
            .iter()
            .any(|o| o.name.get_ref() == f.name.get_ref())
        {
            self.push(
                Some(f.name.span()),
                field("name"),
                "figure named twice".into(),
            );
        }
        let side = sides.iter().position(|s| &s.name == f.side.get_ref());
        if side.is_none() {
            self.push(
                Some(f.side.span()),
                field("side"),
                format!("no side named `{}`", f.side.get_ref()),
            );
        }
        self.check_weapons_and_experience(i, f);
        let (x, y) = (*f.x_in.get_ref(), *f.y_in.get_ref());
        if !(0.0..=raw.table.width_in).contains(&x) {
            self.push(Some(f.x_in.span()), field("x_in"), "off the table".into());
        }
        if !(0.0..=raw.table.depth_in).contains(&y) {
            self.push(Some(f.y_in.span()), field("y_in"), "off the table".into());
        }
        let mut figure = Figure {
            id: FigureId(u32::try_from(i).unwrap_or(u32::MAX)),
            name: f.name.get_ref().clone(),
            rank: f.rank,
            side: side.unwrap_or(0),
            leader: f.leader,
            weapon: f.weapon.get_ref().clone(),
            melee_weapon: f.melee_weapon.get_ref().clone(),
            shield: f.shield,
            experience: *f.experience.get_ref(),
            placement: Placement {
                center_in_table: Point2::new(x, y),
                facing_deg: crate::geometry::normalize_deg(*f.facing_deg.get_ref()),
                shape: match f.base {
                    BaseKind::Foot => BaseShape::FOOT,
                    BaseKind::Mounted => BaseShape::MOUNTED,
                },
                sigma_in: raw.position_sigma_in,
            },
            mount_level: self.mount_level(i, f),
            mount_wound: None,
            wound: None,
            loaded: f.loaded,
            concealed: f.concealed,
            rules: match self.rules.map(|r| r.figure_status(&f.status)) {
                Some(Err(e)) => {
                    self.push(None, field("status"), e);
                    FigureRules::None
                }
                Some(Ok(t)) => t,
                None => FigureRules::None,
            },
        };
        let start = FigureStart {
            pace: f.pace,
            prone: f.prone,
            ammo: f.ammo,
        };
        if let Some(Err(e)) = self
            .rules
            .map(|r| r.figure_start(&mut figure, start, START_CLOCK))
        {
            let key = start.given().first().copied().unwrap_or("pace");
            self.push(Some(f.name.span()), field(key), e);
        }
        figure
    }

    /// The figure's weapons are the rule set's; his experience is in its
    /// range.
    fn check_weapons_and_experience(&mut self, i: usize, f: &RawFigure) {
        let field = |x: &str| format!("figure[{i}].{x}");
        if let Some(r) = self.rules {
            if !r.knows_weapon(f.weapon.get_ref()) {
                self.push(
                    Some(f.weapon.span()),
                    field("weapon"),
                    format!("the rule set has no weapon `{}`", f.weapon.get_ref()),
                );
            }
            if !r.knows_melee_weapon(f.melee_weapon.get_ref()) {
                self.push(
                    Some(f.melee_weapon.span()),
                    field("melee_weapon"),
                    format!(
                        "the rule set has no melee weapon `{}`",
                        f.melee_weapon.get_ref()
                    ),
                );
            }
        }
        let exp = *f.experience.get_ref();
        let (lo, hi) = self.rules.map_or((1, 6), |r| r.experience_range());
        if !(lo..=hi).contains(&exp) {
            self.push(
                Some(f.experience.span()),
                field("experience"),
                format!("experience numbers run {lo} to {hi}"),
            );
        }
    }

    /// A mounted figure's speed level (the slowest when not given); a foot
    /// figure has none.
    fn mount_level(&mut self, i: usize, f: &RawFigure) -> Option<u8> {
        let field = format!("figure[{i}].mount_speed");
        match (f.base, &f.mount_speed) {
            (BaseKind::Foot, None) => None,
            (BaseKind::Foot, Some(s)) => {
                self.push(Some(s.span()), field, "a foot figure has no mount".into());
                None
            }
            (BaseKind::Mounted, None) => Some(0),
            (BaseKind::Mounted, Some(s)) => {
                let level = self.rules.and_then(|r| r.mount_level(s.get_ref()));
                if level.is_none() {
                    self.push(
                        Some(s.span()),
                        field,
                        format!("unknown mount speed `{}`", s.get_ref()),
                    );
                }
                level
            }
        }
    }

    /// The units, each with its side, typed status and figures.
    fn units(&mut self, raw: &RawScenario, sides: &[Side]) -> Vec<Unit> {
        let mut units: Vec<Unit> = Vec::new();
        for (i, u) in raw.unit.iter().enumerate() {
            if raw.unit[..i]
                .iter()
                .any(|o| o.name.get_ref() == u.name.get_ref())
            {
                self.push(
                    Some(u.name.span()),
                    format!("unit[{i}].name"),
                    "unit named twice".into(),
                );
            }
            let side = sides.iter().position(|s| &s.name == u.side.get_ref());
            if side.is_none() {
                self.push(
                    Some(u.side.span()),
                    format!("unit[{i}].side"),
                    format!("no side named `{}`", u.side.get_ref()),
                );
            }
            let rules = match self.rules.map(|r| r.unit_status(&u.unit_status)) {
                Some(Err(e)) => {
                    self.push(None, format!("unit[{i}].unit_status"), e);
                    UnitRules::None
                }
                Some(Ok(t)) => t,
                None => UnitRules::None,
            };
            units.push(Unit {
                name: u.name.get_ref().clone(),
                side: side.unwrap_or(0),
                figures: Vec::new(),
                formation: u.formation.clone(),
                frontage: u.frontage,
                rules,
            });
        }
        for (i, f) in raw.figure.iter().enumerate() {
            let Some(name) = f.unit.as_ref() else {
                continue;
            };
            match units.iter_mut().find(|u| &u.name == name.get_ref()) {
                Some(u) => u
                    .figures
                    .push(FigureId(u32::try_from(i).unwrap_or(u32::MAX))),
                None => self.push(
                    Some(name.span()),
                    format!("figure[{i}].unit"),
                    format!("no unit named `{}`", name.get_ref()),
                ),
            }
        }
        units
    }
}

/// A side's `accepted_casualties_percent` becomes its preservation limit
/// (the rule set's reading of its number of men).
fn preservation_limits(
    raw: &RawScenario,
    mut sides: Vec<Side>,
    figures: &[Figure],
    rules: Option<&dyn RuleSet>,
) -> Vec<Side> {
    for (i, side) in sides.iter_mut().enumerate() {
        let Some(raw_side) = raw.side.iter().find(|r| r.name.get_ref() == &side.name) else {
            continue;
        };
        if let Some(pct) = &raw_side.accepted_casualties_percent {
            let men = figures.iter().filter(|f| f.side == i).count();
            side.preservation_limit = rules.and_then(|r| r.preservation_limit(*pct.get_ref(), men));
        }
    }
    sides
}
