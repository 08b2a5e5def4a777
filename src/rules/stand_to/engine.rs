//! The Stand To! engine: checks commands, rolls, and turns results into
//! events. Everything numeric comes from [`StandTo`] data; this file holds
//! the procedure the data cannot express.

use nalgebra::Point2;

use super::action::{Action, AimUse, FireMode, OrderVia};
use super::calc::{
    self, D6, FireSituation, MeleeSide, SaveSituation, Struck, combine_wounds, fire_odds,
    fire_outcome, melee_odds, melee_outcome, outnumbered_odds, outnumbered_outcome, save_number,
};
use super::data::{ExperienceLevel, SnapRanges, StandTo, WeaponData, Wound};
use crate::core::dice::{Dice, DieRoll, total};
use crate::core::odds::{NamedOdds, named, probability};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::{
    self, Band, Call, Cover, Measured, Placement, RangeMethod, Sight, TerrainKind, in_cone,
    length_inside_in, line_of_sight,
};
use crate::rules::{
    Command, Event, Figure, FigureId, GameState, ObstacleStage, Pace, Rank, SideKind,
};
use crate::rules::{RuleError, RuleSet};

use super::event::Event as StandToEvent;
use super::status;

mod campaign;
mod covering;
mod dismount;
mod fire;
mod gun;
mod melee;
mod movement;
mod orders;
mod reactions;

/// Names of the three range bands, shortest first.
pub const BAND_NAMES: [&str; 3] = ["short", "medium", "long"];

/// How far past an obstacle a crossing figure is placed, rule inches: "on
/// the opposite side but still in contact" is at most a base's depth.
pub const OBSTACLE_CROSS_MAX_IN: f64 = 2.5;

/// Facing uncertainty assumed for a gun cone when the camera gives none,
/// degrees (the front mark is a 40 degree arc; its centre is found to a few
/// degrees).
pub const GUN_FACING_SIGMA_DEG: f64 = 2.0;

/// Path heading changes below this many degrees are not turns (measuring
/// noise along a straight move).
const STRAIGHT_TOLERANCE_DEG: f64 = 1.0;

/// An order name as the vocabularies spell it: lower case, words joined
/// by `-`.
pub fn signal_name(order: &str) -> String {
    order
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

/// Stand To! as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct StandToRules {
    /// The rule data (player editable).
    pub data: StandTo,
}

/// Everything a shot depends on, measured and looked up.
#[derive(Debug, Clone)]
pub struct FirePlan {
    /// Range in rule inches.
    pub range: Measured,
    pub band: Call<Band>,
    pub band_name: String,
    pub sight: Sight,
    pub situation: FireSituation,
}

/// Events produced so far, applied to a scratch copy of the state so that
/// later steps see earlier results.
struct Scratch {
    state: GameState,
    events: Vec<Event>,
}

impl Scratch {
    fn new(state: &GameState) -> Self {
        Self {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    fn push(&mut self, e: Event) {
        self.state.apply(&e);
        self.events.push(e);
    }

    fn roll(
        &mut self,
        dice: &mut dyn Dice,
        purpose: &str,
        figure: Option<FigureId>,
        n: usize,
    ) -> Result<Vec<DieRoll>, RuleError> {
        let rolled = dice.roll_n(n, D6)?;
        self.push(Event::Rolled {
            purpose: purpose.to_owned(),
            figure,
            dice: rolled.clone(),
        });
        Ok(rolled)
    }

    fn note(&mut self, text: impl Into<String>) {
        self.push(Event::Note { text: text.into() });
    }

    fn measured<T>(&mut self, what: &str, m: Measured, call: &Call<T>) {
        self.push(Event::Measured(
            Length::<Inch>::from_measured(m).reading_with(what, call),
        ));
    }
}

/// This rule set refuses the command now, for a rule of `kind`.
fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    crate::rules::common::refusal(super::NAME, kind, why)
}

fn figure(state: &GameState, id: FigureId) -> Result<&Figure, RuleError> {
    state.figure(id).ok_or(RuleError::Unknown {
        what: "figure",
        name: id.0.to_string(),
    })
}

impl StandToRules {
    /// The built-in data.
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: StandTo::builtin()?,
        })
    }

    /// A new figure's experience number: one die, less the referee's
    /// penalty for green units, never below 1.
    pub fn starting_experience(
        &self,
        dice: &mut dyn Dice,
        green: bool,
    ) -> Result<(u8, DieRoll), RuleError> {
        let roll = dice.roll(D6)?;
        let penalty = if green {
            u32::from(self.data.experience.green_penalty)
        } else {
            0
        };
        let n = roll.face.saturating_sub(penalty).max(1);
        Ok((u8::try_from(n).unwrap_or(u8::MAX), roll))
    }

    /// The side kind of a figure.
    pub fn side_kind(state: &GameState, f: &Figure) -> SideKind {
        state.sides.get(f.side).map_or(SideKind::Native, |s| s.kind)
    }

    /// The experience level of a figure.
    pub fn level(&self, state: &GameState, f: &Figure) -> Result<&ExperienceLevel, RuleError> {
        self.data
            .level(f.experience, Self::side_kind(state, f))
            .ok_or(RuleError::Unknown {
                what: "experience number",
                name: f.experience.to_string(),
            })
    }

    fn ignores_light(&self, state: &GameState, f: &Figure) -> bool {
        self.level(state, f).is_ok_and(|l| l.light_wounds_ignored)
    }

    fn wound_penalty(&self, state: &GameState, f: &Figure) -> i32 {
        if f.wound == Some(Wound::Light) && !self.ignores_light(state, f) {
            self.data.damage.wounds.light_ability_penalty
        } else {
            0
        }
    }

    /// Range between two figures in rule inches, measured as `method` says.
    pub fn rule_range(
        &self,
        state: &GameState,
        a: &Figure,
        b: &Figure,
        method: RangeMethod,
    ) -> Measured {
        state
            .scale
            .rule_from_table(geometry::range_in(&a.placement, &b.placement, method))
    }

    fn table_in(&self, state: &GameState, rule_in: f64) -> f64 {
        state.scale.table_from_rule_in(rule_in)
    }

    fn sight(&self, state: &GameState, a: &Placement, b: &Placement) -> Sight {
        let reach = self.table_in(state, self.data.measure.cover_reach_in);
        line_of_sight(a, b, &state.terrain, reach)
    }

    /// The targets a figure must choose from, by the rules' priority: (1) the
    /// enemy he is aiming at, or those in the area he covers; (2) the nearest enemy group that is a danger
    /// (charging, in melee with a friend, or with the firer in its weapon's
    /// range); (3) the nearest enemy group. Only enemies he can see count.
    /// One of the returned group is chosen at random.
    pub fn target_priority(&self, state: &GameState, shooter: FigureId) -> Vec<FigureId> {
        let Some(s) = state.figure(shooter) else {
            return Vec::new();
        };
        let visible: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|t| t.side != s.side && t.alive() && !t.concealed)
            .filter(|t| self.sight(state, &s.placement, &t.placement).clear.value)
            .collect();
        if let Some(aimed) = status::st(s).aiming_at
            && visible.iter().any(|t| t.id == aimed)
        {
            return vec![aimed];
        }
        let covered: Vec<FigureId> = visible
            .iter()
            .filter(|t| self.in_covered_area(state, s, t))
            .map(|t| t.id)
            .collect();
        if !covered.is_empty() {
            return covered;
        }
        let range = |t: &Figure| {
            self.rule_range(state, s, t, self.data.measure.fire)
                .value_in
        };
        let danger = |t: &Figure| {
            status::now(state, t).pace() == Pace::Charge
                || self
                    .engaged_with(state, t)
                    .iter()
                    .any(|id| state.figure(*id).is_some_and(|f| f.side == s.side))
                || self
                    .data
                    .weapon(&t.weapon)
                    .is_some_and(|w| range(t) <= w.range_in[2])
        };
        let group = |cands: Vec<&Figure>| -> Vec<FigureId> {
            let Some(nearest) = cands.iter().min_by(|a, b| range(a).total_cmp(&range(b))) else {
                return Vec::new();
            };
            cands
                .iter()
                .filter(|t| {
                    state
                        .scale
                        .rule_from_table(geometry::range_in(
                            &nearest.placement,
                            &t.placement,
                            RangeMethod::CentreToCentre,
                        ))
                        .value_in
                        <= self.data.fire.target_group_in
                })
                .map(|t| t.id)
                .collect()
        };
        let dangerous = group(visible.iter().copied().filter(|t| danger(t)).collect());
        if dangerous.is_empty() {
            group(visible)
        } else {
            dangerous
        }
    }

    /// The enemy a fanatic must charge: the closest one he sees. None for a
    /// figure who is not a fanatic, or who sees no enemy.
    pub fn forced_charge_target(&self, state: &GameState, f: &Figure) -> Option<FigureId> {
        if !self.level(state, f).is_ok_and(|l| l.charges_closest_enemy) || !f.active() {
            return None;
        }
        state
            .figures
            .iter()
            .filter(|o| o.side != f.side && o.alive() && !o.concealed)
            .filter(|o| self.sight(state, &f.placement, &o.placement).clear.value)
            .map(|o| {
                let r = self.rule_range(state, f, o, RangeMethod::CentreToCentre);
                (o.id, r.value_in)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id)
    }

    /// A fanatic who has started charging: he reacts to nothing else.
    pub fn charging_fanatic(&self, state: &GameState, f: &Figure) -> bool {
        self.level(state, f).is_ok_and(|l| l.charges_closest_enemy)
            && (status::now(state, f).pace() == Pace::Charge || status::st(f).charging.is_some())
    }

    /// Living enemies within the melee engagement distance of a figure.
    pub fn engaged_with(&self, state: &GameState, f: &Figure) -> Vec<FigureId> {
        state
            .figures
            .iter()
            .filter(|o| o.side != f.side && o.active() && o.id != f.id)
            .filter(|o| {
                self.rule_range(state, f, o, self.data.measure.melee)
                    .at_most(self.data.melee.engagement_in)
                    .value
            })
            .map(|o| o.id)
            .collect()
    }

    fn phase_name(&self, state: &GameState) -> String {
        self.data
            .turn
            .phases
            .get(state.phase)
            .cloned()
            .unwrap_or_default()
    }

    fn require_phase(&self, state: &GameState, phase: &str) -> Result<(), RuleError> {
        let now = self.phase_name(state);
        if now == phase {
            Ok(())
        } else {
            Err(refuse(
                RefusalKind::WrongPhase,
                format!("this is the {now} phase, not {phase}"),
            ))
        }
    }

    fn require_own_turn(state: &GameState, f: &Figure) -> Result<(), RuleError> {
        if f.side != state.active_side {
            return Err(refuse(
                RefusalKind::NotYourTurn,
                format!("{} acts only in his own side's turn", f.name),
            )
            .by(f.id));
        }
        Ok(())
    }

    fn require_able(state: &GameState, f: &Figure) -> Result<(), RuleError> {
        if !f.active() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is out of the fight", f.name),
            )
            .by(f.id));
        }
        if status::st(f)
            .idle_until_turn
            .is_some_and(|t| t >= state.turn)
        {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} does nothing this turn", f.name),
            )
            .by(f.id));
        }
        Ok(())
    }

    /// What the figure has spent this turn on, of the things that take a
    /// turn: loading, aiming (at a man or a place), firing.
    fn turn_spent_on(state: &GameState, f: &Figure) -> Option<&'static str> {
        let now = status::now(state, f);
        if status::st(f).loaded_turn == Some(state.turn) {
            Some("loading")
        } else if now.aiming_at.is_some() && now.aim_ready_from == Some(now.own_turn + 1) {
            Some("aiming")
        } else if now
            .covering
            .as_ref()
            .is_some_and(|c| c.turn == now.own_turn)
        {
            Some("aiming at a location")
        } else if now.shots_this_turn() > 0 {
            Some("firing")
        } else {
            None
        }
    }

    /// "All of the following actions can be accomplished in a single turn":
    /// an action of the data's `turn.single_turn` takes the man's turn, so
    /// it is refused when he has spent this turn on another (or fired).
    fn check_turn_taken(&self, state: &GameState, action: &Action) -> Result<(), RuleError> {
        if !self
            .data
            .turn
            .single_turn
            .iter()
            .any(|n| n == action.name())
        {
            return Ok(());
        }
        let id = match action {
            Action::Load { figure }
            | Action::Aim { figure, .. }
            | Action::AimAtLocation { figure, .. } => *figure,
            _ => return Ok(()),
        };
        let f = figure(state, id)?;
        match Self::turn_spent_on(state, f) {
            Some(spent) => Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has spent this turn {spent}: {} takes a turn",
                    f.name,
                    action.name()
                ),
            )
            .by(f.id)),
            None => Ok(()),
        }
    }

    fn weapon(&self, name: &str) -> Result<&WeaponData, RuleError> {
        self.data.weapon(name).ok_or(RuleError::Unknown {
            what: "weapon",
            name: name.to_owned(),
        })
    }

    /// The movement save of a figure (its pace, or its mount's speed).
    fn movement_save(&self, state: &GameState, f: &Figure) -> u32 {
        let s = &self.data.saves;
        if let Some(level) = f.mount_level.filter(|_| f.mounted()) {
            return match self
                .data
                .mount
                .speed
                .get(usize::from(level))
                .map(|s| s.name.as_str())
            {
                Some("walk") => s.mounted_walk,
                Some("trot") => s.mounted_trot,
                Some("canter") => s.mounted_canter,
                _ => s.mounted_gallop,
            };
        }
        match status::now(state, f).pace() {
            Pace::Stationary => s.stationary,
            Pace::Crawl => s.crawling,
            Pace::Walk => s.walking,
            Pace::Doubletime => s.doubletime,
            Pace::Charge => s.charging,
            Pace::Evade => s.evading,
        }
    }

    /// The band edges a weapon uses in a fire mode, rule inches.
    pub fn band_edges(&self, w: &WeaponData, mode: FireMode) -> Result<[f64; 3], RuleError> {
        Ok(match mode {
            FireMode::Aimed => w.range_in,
            FireMode::Snap => {
                let base = match w.snap_ranges {
                    SnapRanges::Own => w.range_in,
                    SnapRanges::Revolver => self.weapon("revolver")?.range_in,
                };
                base.map(|r| r * w.snap_range_factor)
            }
        })
    }

    /// The command's error when it is not one of Stand To!'s.
    fn unsupported(command: &Command) -> RuleError {
        RuleError::Unsupported {
            rule_set: super::NAME.to_owned(),
            action: crate::rules::action::action_name(command),
        }
    }

    /// Can the command be carried out in this state? Each action's own
    /// checks; no dice are rolled.
    fn check_command(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        match command {
            Command::StandTo(action) => {
                self.check_stand_to(state, action)?;
                self.check_turn_taken(state, action)
            }
            Command::EndPhase => Ok(()),
            other => Err(Self::unsupported(other)),
        }
    }

    /// A Stand To! action's checks.
    fn check_stand_to(&self, state: &GameState, action: &Action) -> Result<(), RuleError> {
        match action {
            Action::Load { figure } => self.check_load(state, *figure).map(|_| ()),
            Action::Aim { figure, target } => self.check_aim(state, *figure, *target),
            Action::AimAtLocation { figure, center_in } => {
                self.check_aim_at_location(state, *figure, *center_in)
            }
            Action::FireAtLocation { shooter, target } => self
                .location_fire_plan(state, *shooter, *target)
                .map(|_| ()),
            Action::Fire {
                shooter,
                target,
                mode,
                rapid,
                ..
            } => self.check_fire(state, *shooter, *target, *mode, *rapid),
            Action::FireGun { gun } => self.gun_plan(state, *gun).map(|_| ()),
            Action::Melee {
                attackers,
                defenders,
            } => self.check_melee(state, attackers, defenders),
            Action::Move {
                figure,
                path_in,
                pace,
                mount_level,
                ..
            } => self
                .check_move(state, *figure, path_in, *pace, *mount_level)
                .map(|_| ()),
            Action::Prone { figure, .. } => self.check_prone(state, *figure),
            Action::Order {
                giver,
                to,
                via,
                order,
            } => self.check_order(state, *giver, to, via, order).map(|_| ()),
            Action::Spot { scout, center_in } => {
                self.spot_plan(state, *scout, *center_in).map(|_| ())
            }
            Action::FirstAttack { leader } => self.check_first_attack(state, *leader),
            Action::Rescue { wounded } => self.rescue_plan(state, *wounded).map(|_| ()),
            Action::Shed { side } => self.check_shed(state, *side),
            Action::Advance { figure } => self.check_advance(state, *figure),
            Action::Recover { figure, cared_for } => {
                self.recovery_plan(state, *figure, *cared_for).map(|_| ())
            }
            Action::RollExperience { figure } => self.experience_plan(state, figure).map(|_| ()),
            Action::Dismount(_) | Action::DrivePeg(_) => self.check_action(state, action),
        }
    }

    /// The exact odds of the command's first roll, from its checked plan
    /// (no dice); commands that roll nothing have none.
    fn odds_command(
        &self,
        state: &GameState,
        command: &Command,
    ) -> Result<Vec<NamedOdds>, RuleError> {
        let Command::StandTo(action) = command else {
            return self.check_command(state, command).map(|()| Vec::new());
        };
        match action {
            Action::Fire {
                shooter,
                target,
                mode,
                aim_use,
                at_mount,
                ..
            } => {
                let plan = self.fire_plan(state, *shooter, *target, *mode, *aim_use, *at_mount)?;
                Ok(fire_named(
                    &fire_odds(&self.data, &plan.situation),
                    plan.situation.mounted_target,
                ))
            }
            Action::FireAtLocation { shooter, target } => {
                let plan = self.location_fire_plan(state, *shooter, *target)?;
                Ok(fire_named(
                    &fire_odds(&self.data, &plan.situation),
                    plan.situation.mounted_target,
                ))
            }
            Action::Melee {
                attackers,
                defenders,
            } => self.melee_named(state, attackers, defenders),
            Action::FireGun { gun } => Ok(self.gun_odds(state, &self.gun_plan(state, *gun)?)),
            Action::Spot { scout, center_in } => {
                Ok(Self::spot_odds(&self.spot_plan(state, *scout, *center_in)?))
            }
            Action::FirstAttack { leader } => {
                self.check_first_attack(state, *leader)?;
                Ok(self.first_attack_odds())
            }
            Action::Rescue { wounded } => {
                Ok(self.rescue_plan_odds(&self.rescue_plan(state, *wounded)?))
            }
            Action::Advance { figure } => {
                self.check_advance(state, *figure)?;
                Ok(self.advance_odds(state, *figure))
            }
            Action::Recover { figure, cared_for } => {
                Ok(self.recovery_odds(&self.recovery_plan(state, *figure, *cared_for)?))
            }
            Action::RollExperience { figure } => {
                Ok(self.experience_odds(state, &self.experience_plan(state, figure)?))
            }
            other => self.check_stand_to(state, other).map(|()| Vec::new()),
        }
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut sc = Scratch::new(state);
        let action = match command {
            Command::StandTo(action) => action,
            Command::EndPhase => {
                self.resolve_end_phase(state, &mut sc);
                return Ok(sc.events);
            }
            other => return Err(Self::unsupported(other)),
        };
        match action {
            Action::Load { .. } => self.resolve_load(state, &mut sc, action)?,
            Action::Aim { .. } => self.resolve_aim(state, &mut sc, action)?,
            Action::AimAtLocation { figure, center_in } => {
                self.check_aim_at_location(state, *figure, *center_in)?;
                sc.push(Event::StandTo(StandToEvent::AimedAtLocation {
                    figure: *figure,
                    center_in: *center_in,
                }));
            }
            Action::FireAtLocation { shooter, target } => {
                let plan = self.location_fire_plan(state, *shooter, *target)?;
                return self.shoot(state, (*shooter, *target, FireMode::Aimed), &plan, dice);
            }
            Action::Fire {
                shooter,
                target,
                mode,
                rapid,
                aim_use,
                at_mount,
            } => {
                return self.resolve_fire(
                    state,
                    (*shooter, *target, *mode, *rapid, *aim_use, *at_mount),
                    dice,
                );
            }
            Action::FireGun { gun } => return self.resolve_gun(state, *gun, dice),
            Action::Melee {
                attackers,
                defenders,
            } => return self.resolve_melee(state, attackers, defenders, dice),
            Action::Move { .. } => self.resolve_move(state, &mut sc, action)?,
            Action::Prone { figure, prone } => {
                self.resolve_prone(state, &mut sc, *figure, *prone)?;
            }
            Action::Order { .. } => self.resolve_order(state, &mut sc, action)?,
            Action::Spot { scout, center_in } => {
                self.resolve_spot(state, &mut sc, *scout, *center_in, dice)?;
            }
            Action::FirstAttack { leader } => {
                self.resolve_first_attack(state, &mut sc, *leader, dice)?;
            }
            Action::Rescue { wounded } => self.resolve_rescue(state, &mut sc, *wounded, dice)?,
            Action::Shed { side } => self.resolve_shed(state, &mut sc, *side, dice)?,
            Action::Advance { figure } => self.resolve_advance(state, &mut sc, *figure, dice)?,
            Action::Recover { figure, cared_for } => {
                self.resolve_recover(state, &mut sc, (*figure, *cared_for), dice)?;
            }
            Action::RollExperience { figure } => {
                self.resolve_roll_experience(state, &mut sc, figure, dice)?;
            }
            Action::Dismount(_) | Action::DrivePeg(_) => {
                self.resolve_action(state, &mut sc, action)?;
            }
        }
        Ok(sc.events)
    }

    /// The end of the phase: the turn clock moves on.
    fn resolve_end_phase(&self, state: &GameState, sc: &mut Scratch) {
        sc.push(crate::rules::action::next_phase_event(
            state,
            self.data.turn.phases.len(),
        ));
    }
}

/// The round in which side `side` next takes its turn.
fn next_turn_of(state: &GameState, side: usize) -> u32 {
    if side > state.active_side {
        state.turn
    } else {
        state.turn + 1
    }
}

/// Fire odds as named values (mount fields only for mounted targets).
pub fn fire_named(o: &calc::FireOdds, mounted: bool) -> Vec<NamedOdds> {
    let mut v = named(&[
        ("p_on_target", o.p_on_target),
        ("p_saved", o.p_saved),
        ("p_hit", o.p_hit),
        ("p_light", o.p_light),
        ("p_serious", o.p_serious),
        ("p_killed", o.p_killed),
    ]);
    if mounted {
        v.extend(named(&[
            ("p_mount_light", o.p_mount_light),
            ("p_mount_serious", o.p_mount_serious),
            ("p_mount_killed", o.p_mount_killed),
        ]));
    }
    v
}

impl RuleSet for StandToRules {
    fn name(&self) -> &str {
        &self.data.name
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions(&self.data.turn)
    }

    fn phases(&self) -> Vec<String> {
        self.data.turn.phases.clone()
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapon(name).is_some()
    }

    fn knows_melee_weapon(&self, name: &str) -> bool {
        self.data.melee_weapon(name).is_some()
    }

    fn overlays(
        &self,
        state: &GameState,
        figure: FigureId,
    ) -> Vec<crate::rules::overlay::OverlayShape> {
        self.overlay_shapes(state, figure)
    }

    fn first_side_kind(&self) -> Option<SideKind> {
        Some(self.data.turn.first_side)
    }

    fn preservation_limit(&self, accepted_percent: u32, men: usize) -> Option<u32> {
        let rows = &self.data.preservation.limit;
        let row = rows
            .iter()
            .filter(|r| r.accepted_percent <= accepted_percent)
            .max_by_key(|r| r.accepted_percent)
            .or_else(|| rows.iter().min_by_key(|r| r.accepted_percent))?;
        // Whole points: a fraction of a point is not yet over the limit.
        Some((row.multiplier * men as f64).floor() as u32)
    }

    fn base_edge(&self, state: &GameState, f: &Figure) -> Option<crate::vision::EdgeColour> {
        let level = self.level(state, f).ok()?;
        crate::vision::EdgeColour::ALL
            .into_iter()
            .find(|e| e.name() == level.edge)
    }

    fn mount_level(&self, name: &str) -> Option<u8> {
        let i = self.data.mount.speed.iter().position(|s| s.name == name)?;
        u8::try_from(i).ok()
    }

    fn figure_status(
        &self,
        raw: &crate::rules::Status,
    ) -> Result<crate::rules::FigureRules, String> {
        status::figure_status(raw)
    }

    fn side_status(&self, raw: &crate::rules::Status) -> Result<crate::rules::SideRules, String> {
        status::side_status(raw)
    }

    /// The scenario's `pace` (how he moved in his side's turn as the game
    /// starts: it counts until his side's next turn), `prone` and `ammo`.
    fn figure_start(
        &self,
        figure: &mut Figure,
        start: crate::rules::FigureStart,
        clock: crate::core::TurnClock,
    ) -> Result<(), String> {
        let own = clock.side_turn(figure.side);
        let s = figure.rules.stand_to_mut();
        if let Some(pace) = start.pace.filter(|p| *p != Pace::Stationary) {
            s.moved = Some(status::MovedIn {
                turn: own,
                pace,
                through_rough: false,
            });
        }
        s.prone = start.prone.unwrap_or(false);
        s.ammo = start.ammo;
        Ok(())
    }

    /// Every figure gets his Stand To! state (moves and shots are recorded
    /// in it); a gun whose scenario gives no ammunition starts with its
    /// weapon's.
    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        for f in &mut state.figures {
            let gun_ammo = self
                .data
                .weapon(&f.weapon)
                .filter(|w| w.gun)
                .and_then(|w| w.ammo);
            let s = f.rules.stand_to_mut();
            if s.ammo.is_none() {
                s.ammo = gun_ammo;
            }
        }
        Ok(())
    }

    fn command_summary(&self, state: &GameState, command: &Command) -> Option<String> {
        let name = |id: &FigureId| state.figure(*id).map_or("?", |f| f.name.as_str());
        let names = |ids: &[FigureId]| ids.iter().map(name).collect::<Vec<_>>().join(", ");
        match command {
            Command::StandTo(Action::Fire {
                shooter,
                target,
                mode,
                ..
            }) => Some(format!(
                "{} fires ({}) at {}",
                name(shooter),
                match mode {
                    FireMode::Aimed => "aimed",
                    FireMode::Snap => "snap",
                },
                name(target)
            )),
            Command::StandTo(Action::Melee {
                attackers,
                defenders,
            }) => Some(format!(
                "{} in melee with {}",
                names(attackers),
                names(defenders)
            )),
            _ => None,
        }
    }

    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        crate::rules::action::parse_action_or_shared(
            super::NAME,
            super::action::NAMES,
            || {
                crate::rules::action::parse_named(super::NAME, super::action::NAMES, name, params)
                    .map(Command::StandTo)
            },
            name,
            params,
        )
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.check_command(state, command)
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        self.odds_command(state, command)
    }

    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        // The action's own checks first (their refusals say the most),
        // then whether it finds his turn already spent.
        self.check_command(state, command)?;
        let mut events = self.resolve_inner(state, command, dice)?;
        let mut after = state.clone();
        for e in &events {
            after.apply(e);
        }
        events.extend(self.appearances(state, &after, command));
        Ok(events)
    }
}
