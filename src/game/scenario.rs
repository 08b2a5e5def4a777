//! Scenario files (`scenarios/*.toml`): table, terrain, sides, figures and
//! the rule set, so that a game can be played and tested without a camera.
//!
//! # Conventions
//! Positions are base centres in table inches (table frame of
//! `TABLE_KIT.md`); `facing_deg` counter-clockwise from +x. Errors name the
//! file, the line and the field.

use std::path::Path;

use nalgebra::Point2;
use serde::Deserialize;
use toml::Spanned;

use super::state::{
    Figure, FigureId, GameState, ObstacleStage, Pace, Rank, Side, SideKind, TableSize,
};
use crate::geometry::{BaseShape, Placement, Scale, TerrainArea, TerrainKind};
use crate::rules::Registry;
use crate::spec::{SourceFile, SpecError};
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
    facing_deg: f64,
    base: BaseKind,
    #[serde(default)]
    mount_speed: Option<Spanned<String>>,
    #[serde(default)]
    pace: Pace,
    #[serde(default)]
    prone: bool,
    #[serde(default)]
    concealed: bool,
    #[serde(default)]
    loaded: bool,
    #[serde(default)]
    ammo: Option<u32>,
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
    figure: Vec<RawFigure>,
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
        let raw: RawScenario = src.parse_toml()?;
        let mut problems = Vec::new();
        let rules = registry.get(raw.rule_set.get_ref());
        if rules.is_none() {
            problems.push(src.problem(
                Some(raw.rule_set.span()),
                "rule_set",
                format!(
                    "unknown rule set `{}` (known: {})",
                    raw.rule_set.get_ref(),
                    registry.names().join(", ")
                ),
            ));
        }
        if raw.table.width_in <= 0.0 || raw.table.depth_in <= 0.0 {
            problems.push(src.problem(None, "table", "table sides must be positive"));
        }
        for (i, t) in raw.terrain.iter().enumerate() {
            if t.polygon_in.get_ref().len() < 3 {
                problems.push(src.problem(
                    Some(t.polygon_in.span()),
                    format!("terrain[{i}].polygon_in"),
                    "an area needs at least three points",
                ));
            }
        }
        // The rule set's first side moves first: put those sides first.
        let first = rules.as_ref().and_then(|r| r.first_side_kind());
        let mut side_order: Vec<usize> = (0..raw.side.len()).collect();
        side_order.sort_by_key(|&i| Some(raw.side[i].kind) != first);
        let sides: Vec<Side> = side_order
            .iter()
            .map(|&i| Side {
                name: raw.side[i].name.get_ref().clone(),
                kind: raw.side[i].kind,
                preservation_points: 0,
                preservation_limit: raw.side[i].preservation_limit,
                broken: false,
                first_attack_rolled: false,
            })
            .collect();
        for (i, s) in raw.side.iter().enumerate() {
            if raw.side[..i]
                .iter()
                .any(|o| o.name.get_ref() == s.name.get_ref())
            {
                problems.push(src.problem(
                    Some(s.name.span()),
                    format!("side[{i}].name"),
                    "side named twice",
                ));
            }
        }
        if sides.is_empty() {
            problems.push(src.problem(None, "side", "at least one side is needed"));
        }
        let mut figures = Vec::new();
        for (i, f) in raw.figure.iter().enumerate() {
            let field = |x: &str| format!("figure[{i}].{x}");
            let name = f.name.get_ref();
            if raw.figure[..i].iter().any(|o| o.name.get_ref() == name) {
                problems.push(src.problem(
                    Some(f.name.span()),
                    field("name"),
                    "figure named twice",
                ));
            }
            let side = sides.iter().position(|s| &s.name == f.side.get_ref());
            if side.is_none() {
                problems.push(src.problem(
                    Some(f.side.span()),
                    field("side"),
                    format!("no side named `{}`", f.side.get_ref()),
                ));
            }
            if let Some(r) = rules.as_ref() {
                if !r.knows_weapon(f.weapon.get_ref()) {
                    problems.push(src.problem(
                        Some(f.weapon.span()),
                        field("weapon"),
                        format!("the rule set has no weapon `{}`", f.weapon.get_ref()),
                    ));
                }
                if !r.knows_melee_weapon(f.melee_weapon.get_ref()) {
                    problems.push(src.problem(
                        Some(f.melee_weapon.span()),
                        field("melee_weapon"),
                        format!(
                            "the rule set has no melee weapon `{}`",
                            f.melee_weapon.get_ref()
                        ),
                    ));
                }
            }
            let exp = *f.experience.get_ref();
            if !(1..=6).contains(&exp) {
                problems.push(src.problem(
                    Some(f.experience.span()),
                    field("experience"),
                    "experience numbers run 1 to 6",
                ));
            }
            let (x, y) = (*f.x_in.get_ref(), *f.y_in.get_ref());
            if !(0.0..=raw.table.width_in).contains(&x) {
                problems.push(src.problem(Some(f.x_in.span()), field("x_in"), "off the table"));
            }
            if !(0.0..=raw.table.depth_in).contains(&y) {
                problems.push(src.problem(Some(f.y_in.span()), field("y_in"), "off the table"));
            }
            let mount_level = match (f.base, &f.mount_speed) {
                (BaseKind::Foot, None) => None,
                (BaseKind::Foot, Some(s)) => {
                    problems.push(src.problem(
                        Some(s.span()),
                        field("mount_speed"),
                        "a foot figure has no mount",
                    ));
                    None
                }
                (BaseKind::Mounted, None) => Some(0),
                (BaseKind::Mounted, Some(s)) => {
                    let level = rules.as_ref().and_then(|r| r.mount_level(s.get_ref()));
                    if level.is_none() {
                        problems.push(src.problem(
                            Some(s.span()),
                            field("mount_speed"),
                            format!("unknown mount speed `{}`", s.get_ref()),
                        ));
                    }
                    level
                }
            };
            figures.push(Figure {
                id: FigureId(u32::try_from(i).unwrap_or(u32::MAX)),
                name: name.clone(),
                rank: f.rank,
                side: side.unwrap_or(0),
                leader: f.leader,
                weapon: f.weapon.get_ref().clone(),
                melee_weapon: f.melee_weapon.get_ref().clone(),
                shield: f.shield,
                experience: exp,
                placement: Placement {
                    center_in_table: Point2::new(x, y),
                    facing_deg: crate::geometry::normalize_deg(f.facing_deg),
                    shape: match f.base {
                        BaseKind::Foot => BaseShape::FOOT,
                        BaseKind::Mounted => BaseShape::MOUNTED,
                    },
                    sigma_in: raw.position_sigma_in,
                },
                mount_level,
                mount_wound: None,
                wound: None,
                pace: f.pace,
                prone: f.prone,
                charged_through_rough: false,
                loaded: f.loaded,
                load_progress: 0,
                aiming_at: None,
                aim_ready: false,
                shots_this_turn: 0,
                charge_turns_used: 0,
                idle_until_turn: None,
                concealed: f.concealed,
                order: None,
                pending_order: None,
                obstacle: ObstacleStage::Clear,
                ammo: f.ammo,
            });
        }
        if !problems.is_empty() {
            return Err(src.error(problems).into());
        }
        let mut sides = sides;
        for (i, side) in sides.iter_mut().enumerate() {
            let Some(raw_side) = raw.side.iter().find(|r| r.name.get_ref() == &side.name) else {
                continue;
            };
            if let Some(pct) = &raw_side.accepted_casualties_percent {
                let men = figures.iter().filter(|f| f.side == i).count();
                side.preservation_limit = rules
                    .as_ref()
                    .and_then(|r| r.preservation_limit(*pct.get_ref(), men));
            }
        }
        let n_sides = sides.len();
        Ok(Self {
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
                terrain: raw
                    .terrain
                    .into_iter()
                    .map(|t| TerrainArea {
                        name: t.name,
                        kinds: t.kinds,
                        polygon_in: t
                            .polygon_in
                            .into_inner()
                            .into_iter()
                            .map(|[x, y]| Point2::new(x, y))
                            .collect(),
                    })
                    .collect(),
                sides,
                figures,
                turn: 1,
                active_side: 0,
                phase: 0,
                orders_this_turn: vec![0; n_sides],
            },
        })
    }
}
