//! The Soldiers in Time engine, its [`Action`]s each in its
//! phase of the turn (rally, command, movement, shooting, melee,
//! follow-through):
//! - `rally` (rally): every routed figure of the side flips a card;
//! - `activate` (command, movement): an order's activation card;
//! - `load-gun` (rally, command, movement): a gun reloads and its marker
//!   says ball or grapeshot;
//! - `move` (movement): foot at a walk or run, riders at a horse speed,
//!   guns 1 in; minefield squares crossed roll on the way;
//! - `fire`, `volley`, `artillery`, `grenade` (shooting);
//! - `melee`, `horse-impact` (melee);
//! - `follow-through` (follow-through): 1 in, horses 1 in per 5 in moved;
//! - `morale-check` (any phase): a trigger the camera cannot see (a
//!   charge by cavalry, a lord killed out of sight);
//! - `end-phase`.
//!
//! Morale triggers are applied as results come: a kill checks the figures
//! within 1 in, a dead leader the figures in his command range, a dead
//! flag bearer the figures within 8 in; a rout checks the figures within
//! 1 in of the routing figure.
//!
//! # Conventions
//! Table inches; command range and adjacency base edge to base edge. Each
//! side draws from its own deck `<side> cards` (a full 52-card deck,
//! reshuffled when empty); side status `colour` (`red` or `black`) decides
//! which face cards are its own; side status `mines` lists its minefield
//! squares by lower-left corner, `x,y;x,y`. Figure status: `armour`,
//! `order`, `routed`, `removed`, `charging`, `charge-turns`, `moved-in`,
//! `moved-turn`, `flag`, `grenades`, `horsemanship`, `horse` (`small`,
//! `big`), `loaded-with` (`ball`, `grapeshot`).

use nalgebra::Point2;

use super::action::*;
use super::{
    ArtilleryKind, Card, Damage, NAME, Shot, SoldiersInTime, WeaponData, activation_odds,
    activation_passes, damage_distribution, damage_odds, damage_result, full_deck, hit_p, hits,
    horse_impact_distribution, melee_base, melee_odds, mine_p, morale_odds, morale_passes,
    save_passes, shot_odds,
};
use crate::core::dice::{Dice, total};
use crate::core::odds::{NamedOdds, named};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::{
    angle_off_facing_deg, bearing_deg, disc_touches_base, in_cone, path_length_in, point_at,
    square_entries, square_outline,
};
use crate::rules::action::{CheckDice, next_phase_event};
use crate::rules::common::{
    Work, centre_gap_in, edge_gap_in, figure, refusal, require_active_side, require_phase,
    status_num,
};
use crate::rules::deck;
use crate::rules::stand_to::Wound;
use crate::rules::{Command, Deck, Event, Figure, FigureId, GameState, Pace, StatusOf};
use crate::rules::{RuleError, RuleSet};

/// Soldiers in Time as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct SoldiersInTimeRules {
    pub data: SoldiersInTime,
}

const ORDERS_TO_MOVE: [&str; 3] = ["forward-march", "formed-charge", "follow-him"];
const FIRE_ORDERS: [&str; 2] = ["volley-fire", "independent-fire"];
/// Slack on a measured distance (table inches) before a move is refused:
/// the camera's placement is not better than this.
const MOVE_SLACK_IN: f64 = 0.05;

/// The deck a side draws from.
pub fn deck_name(state: &GameState, side: usize) -> String {
    format!(
        "{} cards",
        state.sides.get(side).map_or("?", |s| s.name.as_str())
    )
}

fn is_red(state: &GameState, side: usize) -> bool {
    state
        .sides
        .get(side)
        .is_some_and(|s| s.status.get("colour").is_some_and(|c| c == "red"))
}

/// Still in the battle: not killed or disabled, not removed after a failed
/// rally.
pub fn in_play(f: &Figure) -> bool {
    f.active() && !f.status.contains_key("removed")
}

fn routed(f: &Figure) -> bool {
    f.status.contains_key("routed")
}

fn point(p: [f64; 2]) -> Point2<f64> {
    Point2::new(p[0], p[1])
}

fn set(of: FigureId, key: &str, value: Option<String>) -> Event {
    Event::Status {
        of: StatusOf::Figure(of),
        key: key.into(),
        value,
    }
}

impl SoldiersInTimeRules {
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: SoldiersInTime::builtin()?,
        })
    }

    fn phase(&self, state: &GameState, action: &str, allowed: &[&str]) -> Result<(), RuleError> {
        require_phase(NAME, &self.data.turn.phases, state, action, allowed)
    }

    /// Is a leader of the figure's side (other than the figure) within
    /// command range? A leader is only influenced by a leader of at least
    /// his experience.
    fn leader_in_range(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|l| {
            l.leader
                && l.id != f.id
                && in_play(l)
                && !routed(l)
                && l.side == f.side
                && (!f.leader || l.experience >= f.experience)
                && edge_gap_in(l, f) <= self.data.command.range_in
        })
    }

    /// A flag bearer of the side within 8 in (he modifies morale checks as
    /// a leader does).
    fn flag_in_range(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|b| {
            b.status.contains_key("flag")
                && b.id != f.id
                && in_play(b)
                && b.side == f.side
                && edge_gap_in(b, f) <= self.data.special.flag_bearer_radius_in
        })
    }

    fn influenced(&self, state: &GameState, f: &Figure) -> bool {
        self.leader_in_range(state, f) || self.flag_in_range(state, f)
    }

    fn shot_for(&self, state: &GameState, t: &Figure, skill: u8, modifier: i32) -> Shot {
        Shot {
            fire_skill: skill,
            modifier,
            already_loaded: true,
            target_armour: status_num(t, "armour"),
            target_experience: t.experience,
            target_red: is_red(state, t.side),
            leader_in_range: self.leader_in_range(state, t),
        }
    }

    fn deck_pile(state: &GameState, side: usize) -> Vec<String> {
        deck::next_pile(state, &deck_name(state, side), true)
    }

    fn draw(work: &mut Work, side: usize, dice: &mut dyn Dice) -> Result<Card, RuleError> {
        let name = deck_name(&work.now, side);
        let card = deck::draw(NAME, work, &name, dice, true)?;
        Card::parse(&card).ok_or_else(|| {
            refuse(
                RefusalKind::Cards,
                format!("`{card}` is not a playing card"),
            )
        })
    }

    /// The rear for a routing figure: away from the nearest enemy (or
    /// behind its facing), 4 in, kept on the table.
    fn rout_event(&self, state: &GameState, f: &Figure) -> Event {
        let at = f.placement.center_in_table;
        let enemy = state
            .figures
            .iter()
            .filter(|e| e.side != f.side && in_play(e))
            .min_by(|a, b| centre_gap_in(a, f).total_cmp(&centre_gap_in(b, f)));
        let away = match enemy {
            Some(e) if centre_gap_in(e, f) > f64::EPSILON => {
                bearing_deg(e.placement.center_in_table, at)
            }
            _ => f.placement.facing_deg + 180.0,
        };
        let to = point_at(at, away, self.data.fire.rout_in);
        let to = Point2::new(
            to.x.clamp(0.0, state.table.width_in),
            to.y.clamp(0.0, state.table.depth_in),
        );
        Event::Moved {
            figure: f.id,
            to_in: to,
            facing_deg: crate::geometry::normalize_deg(away),
            pace: Pace::Evade,
            distance_in: (to - at).norm(),
            through_rough: false,
        }
    }

    /// Morale checks, one after another; a rout queues checks for the
    /// figures within 1 in of the routing figure.
    /// A morale card for `f`: logs the odds of passing (under `odds_key`),
    /// draws from his side's deck and says whether he passes.
    fn morale_draw(
        &self,
        work: &mut Work,
        f: &Figure,
        purpose: String,
        odds_key: &str,
        dice: &mut dyn Dice,
    ) -> Result<bool, RuleError> {
        let influenced = self.influenced(&work.now, f);
        let p = morale_odds(
            &self.data,
            &Self::deck_pile(&work.now, f.side),
            f.experience,
            f.leader,
            influenced,
        );
        work.push(Event::Odds {
            purpose,
            odds: named(&[(odds_key, p)]),
        });
        let card = Self::draw(work, f.side, dice)?;
        Ok(morale_passes(
            &self.data,
            card,
            f.experience,
            f.leader,
            influenced,
        ))
    }

    fn morale_checks(
        &self,
        work: &mut Work,
        mut queue: Vec<(FigureId, String)>,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let mut checked: Vec<FigureId> = Vec::new();
        while !queue.is_empty() {
            let (id, reason) = queue.remove(0);
            let f = work.fig(id)?.clone();
            if checked.contains(&id) || !in_play(&f) || routed(&f) {
                continue;
            }
            checked.push(id);
            let purpose = format!("{} checks morale ({reason})", f.name);
            let passed = self.morale_draw(work, &f, purpose, "p_holds", dice)?;
            work.note(format!(
                "{} {} morale ({reason}) against {}",
                f.name,
                if passed { "holds" } else { "fails: routs 4 in" },
                f.experience
            ));
            if !passed {
                work.push(set(id, "routed", Some("true".into())));
                let e = self.rout_event(&work.now, &f);
                work.push(e);
                let moved = work.fig(id)?.clone();
                for n in work.now.figures.iter().filter(|n| {
                    n.side == f.side
                        && n.id != id
                        && in_play(n)
                        && !routed(n)
                        && edge_gap_in(n, &moved) <= self.data.fire.adjacent_in
                }) {
                    queue.push((n.id, format!("{} routed beside him", f.name)));
                }
            }
        }
        Ok(())
    }

    /// A figure dies: the morale checks it triggers follow.
    fn kill(&self, work: &mut Work, id: FigureId, dice: &mut dyn Dice) -> Result<(), RuleError> {
        let f = work.fig(id)?.clone();
        // Who was influenced by him, before he fell.
        let mut queue = Vec::new();
        for n in work
            .now
            .figures
            .iter()
            .filter(|n| n.side == f.side && n.id != id && in_play(n) && !routed(n))
        {
            let gap = edge_gap_in(n, &f);
            if gap <= self.data.fire.adjacent_in {
                queue.push((n.id, format!("{} fell beside him", f.name)));
            } else if f.leader && gap <= self.data.command.range_in {
                queue.push((n.id, format!("his leader {} fell", f.name)));
            } else if f.status.contains_key("flag")
                && gap <= self.data.special.flag_bearer_radius_in
            {
                queue.push((n.id, format!("the flag bearer {} fell", f.name)));
            }
        }
        work.push(Event::Wounded {
            figure: id,
            wound: Wound::Killed,
            mount: false,
        });
        self.morale_checks(work, queue, dice)
    }

    /// Damage against a figure: morale check or save card.
    fn apply_damage(
        &self,
        work: &mut Work,
        id: FigureId,
        damage: u32,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let t = work.fig(id)?.clone();
        if !in_play(&t) {
            return Ok(());
        }
        let leader = self.leader_in_range(&work.now, &t);
        match damage_result(damage, status_num(&t, "armour"), t.experience) {
            Damage::MoraleCheck => {
                work.note(format!(
                    "damage {damage} does not pass {}'s armour: a morale check",
                    t.name
                ));
                self.morale_checks(work, vec![(id, "hit, armour held".into())], dice)?;
            }
            Damage::Save(n) => {
                let card = Self::draw(work, t.side, dice)?;
                let saved = save_passes(card, n, is_red(&work.now, t.side), leader);
                work.note(format!(
                    "damage {damage}: {} saves on {n} or under: {}",
                    t.name,
                    if saved { "saved" } else { "killed" }
                ));
                if !saved {
                    self.kill(work, id, dice)?;
                }
            }
        }
        Ok(())
    }

    fn resolve_rally(
        &self,
        state: &GameState,
        p: &RallyParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "rally", &["rally"])?;
        let ids: Vec<FigureId> = if p.figures.is_empty() {
            state
                .figures
                .iter()
                .filter(|f| f.side == state.active_side && in_play(f) && routed(f))
                .map(|f| f.id)
                .collect()
        } else {
            let mut v = Vec::new();
            for n in &p.figures {
                let f = figure(state, n)?;
                require_active_side(NAME, state, f)?;
                if !routed(f) || !in_play(f) {
                    return Err(
                        refuse(RefusalKind::Morale, format!("{} is not routed", f.name)).by(f.id),
                    );
                }
                v.push(f.id);
            }
            v
        };
        let mut work = Work::new(state);
        if ids.is_empty() {
            work.note("nobody needs to rally");
        }
        for id in ids {
            let f = work.fig(id)?.clone();
            let purpose = format!("{} rallies", f.name);
            // A leader rallies only near another leader of at least his
            // experience.
            let rallies = self.morale_draw(&mut work, &f, purpose, "p_rallies", dice)?
                && (!f.leader || self.leader_in_range(&work.now, &f));
            if rallies {
                work.push(set(id, "routed", None));
                work.note(format!("{} rallies", f.name));
            } else {
                work.push(set(id, "removed", Some("failed to rally".into())));
                work.note(format!("{} fails to rally and leaves the battle", f.name));
            }
        }
        Ok(work.into_events())
    }

    fn resolve_activate(
        &self,
        state: &GameState,
        p: &ActivateParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "activate", &["command", "movement"])?;
        let leader = figure(state, &p.leader)?;
        require_active_side(NAME, state, leader)?;
        if !leader.leader || !in_play(leader) || routed(leader) {
            return Err(refuse(
                RefusalKind::NoOrder,
                format!("{} cannot give orders", leader.name),
            )
            .by(leader.id));
        }
        let men: Vec<&Figure> = p
            .men
            .iter()
            .map(|n| figure(state, n))
            .collect::<Result<_, _>>()?;
        let in_range: Vec<&Figure> = men
            .into_iter()
            .filter(|m| {
                in_play(m)
                    && !routed(m)
                    && m.side == leader.side
                    && edge_gap_in(m, leader) <= self.data.command.range_in
            })
            .collect();
        let exps: Vec<u8> = in_range.iter().map(|m| m.experience).collect();
        let number = self
            .data
            .order_number(&p.order, leader.experience, &exps)
            .ok_or_else(|| refuse(RefusalKind::NoOrder, format!("no order `{}`", p.order)))?;
        let mut work = Work::new(state);
        work.push(Event::Odds {
            purpose: format!("{} orders {}", leader.name, p.order),
            odds: named(&[(
                "p_activates",
                activation_odds(
                    &self.data,
                    &Self::deck_pile(state, leader.side),
                    number,
                    true,
                ),
            )]),
        });
        let card = Self::draw(&mut work, leader.side, dice)?;
        let passed = activation_passes(&self.data, card, number, true);
        work.note(format!(
            "{} {} the {} order against {number}",
            leader.name,
            if passed { "passes" } else { "fails" },
            p.order
        ));
        if passed {
            for m in in_range.iter().map(|m| m.id).chain([leader.id]) {
                work.push(set(m, "order", Some(p.order.clone())));
            }
        }
        Ok(work.into_events())
    }

    fn nearest_enemy<'a>(state: &'a GameState, s: &Figure) -> Option<&'a Figure> {
        state
            .figures
            .iter()
            .filter(|t| t.side != s.side && in_play(t))
            .min_by(|a, b| centre_gap_in(a, s).total_cmp(&centre_gap_in(b, s)))
    }

    fn weapon(&self, f: &Figure) -> Result<&WeaponData, RuleError> {
        self.data.weapons.get(&f.weapon).ok_or(RuleError::Unknown {
            what: "weapon",
            name: f.weapon.clone(),
        })
    }

    /// To-hit modifiers for a shot by `s` at `t`.
    fn fire_modifier(&self, s: &Figure, t: &Figure, snap: bool) -> i32 {
        let mut modifier = 0;
        if snap {
            modifier += self.data.fire.snap_add;
        }
        if t.status.contains_key("charging") {
            modifier += self.data.fire.charging_target_add;
        }
        if s.status.contains_key("charging") {
            modifier += self.data.fire.charging_firer_add;
        }
        if t.concealed {
            modifier += self.data.fire.hidden_target_add;
        }
        modifier
    }

    fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "fire", &["shooting"])?;
        let mut work = Work::new(state);
        self.fire_into(&mut work, p, dice)?;
        Ok(work.into_events())
    }

    fn fire_into(
        &self,
        work: &mut Work,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let state = work.now.clone();
        let s = figure(&state, &p.shooter)?;
        require_active_side(NAME, &state, s)?;
        let t = match &p.target {
            Some(name) => figure(&state, name)?,
            None => Self::nearest_enemy(&state, s)
                .ok_or_else(|| refuse(RefusalKind::OutOfTheFight, "no enemy left in the fight"))?,
        };
        if !in_play(s) || !in_play(t) || routed(s) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                "both figures must be in the fight and the shooter not routed",
            ));
        }
        if s.side == t.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "no firing at one's own side",
            ));
        }
        let w = self.weapon(s)?;
        if w.artillery.is_some() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} serves a gun: use `artillery`", s.name),
            )
            .by(s.id));
        }
        // Aimed fire needs a fire order; a man whose unit failed its
        // activation may still snap fire, but not the leader.
        let ordered = s
            .status
            .get("order")
            .is_some_and(|o| FIRE_ORDERS.contains(&o.as_str()));
        if !ordered && s.leader {
            return Err(refuse(
                RefusalKind::NoOrder,
                format!("{} has no fire order", s.name),
            )
            .by(s.id));
        }
        let snap = p.snap || !ordered;
        let range = centre_gap_in(s, t);
        if range > w.range_in {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!("{} is {range:.1} in away, beyond {} in", t.name, w.range_in),
            )
            .by(t.id));
        }
        let modifier = self.fire_modifier(s, t, snap);
        let shot = Shot {
            already_loaded: s.loaded,
            ..self.shot_for(&state, t, s.experience, modifier)
        };
        let o = shot_odds(&self.data, w, &shot, &Self::deck_pile(&state, t.side));
        work.push(Event::Measured(
            Length::<Inch>::centre_to_centre(&s.placement, &t.placement)
                .reading(format!("{} to {}", s.name, t.name), &[w.range_in]),
        ));
        work.push(Event::Odds {
            purpose: format!("{} fires at {}", s.name, t.name),
            odds: named(&[
                ("p_reloaded", o.p_reloaded),
                ("p_hit", o.p_hit),
                ("p_morale_check_only", o.p_morale_check_only),
                ("p_killed", o.p_killed),
            ]),
        });
        if !s.loaded {
            let r = work.roll1(dice, self.data.fire.die, "reload", Some(s.id))?;
            if r > w.reload_max {
                work.note(format!("{} is still reloading", s.name));
                return Ok(());
            }
        }
        let h = work.roll1(dice, self.data.fire.die, "to hit", Some(s.id))?;
        work.push(Event::SoldiersInTime(super::event::Event::Fired {
            figure: s.id,
            target: t.id,
            snap,
        }));
        if !hits(h, modifier, s.experience) {
            work.note(format!("{} misses", s.name));
            return Ok(());
        }
        let dmg = work.roll(
            dice,
            w.damage_dice as usize,
            w.damage_sides,
            "damage",
            Some(s.id),
        )?;
        let damage = total(&dmg) + w.damage_add;
        self.apply_damage(work, t.id, damage, dice)
    }

    /// Each man still able fires at the nearest enemy in turn; later shots
    /// see the results of earlier ones.
    fn resolve_volley(
        &self,
        state: &GameState,
        p: &VolleyParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "volley", &["shooting"])?;
        let mut work = Work::new(state);
        for name in &p.men {
            let m = figure(&work.now, name)?;
            require_active_side(NAME, state, m)?;
            if !in_play(m) || routed(m) {
                work.note(format!("{name} cannot fire"));
                continue;
            }
            let shot = FireParams {
                shooter: name.clone(),
                target: None,
                snap: false,
            };
            let mut attempt = work.clone();
            match self.fire_into(&mut attempt, &shot, dice) {
                Ok(()) => work = attempt,
                Err(RuleError::Refused(why)) => {
                    work.note(format!("{name} does not fire: {why}"));
                }
                Err(other) => return Err(other),
            }
        }
        Ok(work.into_events())
    }

    fn resolve_melee(
        &self,
        state: &GameState,
        p: &MeleeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "melee", &["melee"])?;
        let a = figure(state, &p.a)?;
        let b = figure(state, &p.b)?;
        if a.side == b.side || (a.side != state.active_side && b.side != state.active_side) {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a melee is between a figure of the side whose turn it is and an enemy",
            ));
        }
        if !in_play(a) || !in_play(b) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                "both figures must be in the fight",
            ));
        }
        if edge_gap_in(a, b) > self.data.fire.adjacent_in {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!(
                    "{} and {} are not in contact (over {} in apart)",
                    a.name, b.name, self.data.fire.adjacent_in
                ),
            )
            .by(a.id));
        }
        let total_of = |f: &Figure| -> Result<i32, RuleError> {
            let base = melee_base(&self.data, &f.melee_weapon, f.experience).ok_or(
                RuleError::Unknown {
                    what: "melee weapon",
                    name: f.melee_weapon.clone(),
                },
            )?;
            Ok(base
                + if f.status.contains_key("charging") {
                    self.data.melee.charging_add
                } else {
                    0
                })
        };
        let (ta, tb) = (total_of(a)?, total_of(b)?);
        let mut work = Work::new(state);
        let o = melee_odds(&self.data, ta, tb, status_num(b, "armour"));
        work.push(Event::Odds {
            purpose: format!("melee {} against {}", a.name, b.name),
            odds: named(&[
                ("p_a_wins", o.p_a_wins),
                ("p_b_wins", o.p_b_wins),
                ("p_tie", o.p_tie),
            ]),
        });
        let rolls = work.roll(
            dice,
            2,
            self.data.melee.die,
            format!("melee {} ({ta:+}) against {} ({tb:+})", a.name, b.name),
            Some(a.id),
        )?;
        let (sa, sb) = (ta + rolls[0].face as i32, tb + rolls[1].face as i32);
        if sa == sb {
            work.note("equal totals: nobody strikes home");
            return Ok(work.into_events());
        }
        let loser = if sa > sb { b } else { a };
        let damage = sa.abs_diff(sb);
        self.apply_damage(&mut work, loser.id, damage, dice)?;
        let after = work.fig(loser.id)?.clone();
        if in_play(&after) && !routed(&after) {
            work.note(format!(
                "{} lost the round: he retreats {} in",
                after.name, self.data.melee.retreat_in
            ));
        }
        Ok(work.into_events())
    }

    fn resolve_move(
        &self,
        state: &GameState,
        p: &MoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "move", &["movement"])?;
        let f = figure(state, &p.figure)?;
        require_active_side(NAME, state, f)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot move", f.name)).by(f.id));
        }
        if f.status.get("moved-turn") == Some(&state.turn.to_string()) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has moved this turn", f.name),
            )
            .by(f.id));
        }
        let mut path = vec![f.placement.center_in_table];
        path.extend(p.path_in.iter().copied().map(point));
        if path.len() < 2 {
            return Err(refuse(
                RefusalKind::Malformed,
                "a move needs at least one point to go to",
            ));
        }
        let length = path_length_in(&path);
        let order = f.status.get("order").cloned().unwrap_or_default();
        let ordered = ORDERS_TO_MOVE.contains(&order.as_str());
        let w = self.data.weapons.get(&f.weapon);
        let mut work = Work::new(state);
        let mut pace = Pace::Walk;
        let allowance = if w.is_some_and(|w| w.artillery.is_some()) {
            if !ordered {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!("{} needs a passed activation to move the gun", f.name),
                )
                .by(f.id));
            }
            self.data.movement.artillery_move_in
        } else if f.mounted() {
            let now = f.mount_level.unwrap_or(0);
            let level = match &p.speed {
                Some(name) => self.mount_level(name).ok_or_else(|| {
                    refuse(RefusalKind::NotInTables, format!("no horse speed `{name}`"))
                })?,
                None => now,
            };
            let (lo, hi) = if ordered {
                let c = self.data.movement.horse_change_levels;
                (now.saturating_sub(c), now.saturating_add(c))
            } else {
                // Failed (or no) activation: same speed or slower, straight on.
                if path.len() > 2 {
                    return Err(refuse(
                        RefusalKind::Movement,
                        format!("{} has no order: his horse runs on straight", f.name),
                    )
                    .by(f.id));
                }
                (
                    now.saturating_sub(self.data.movement.horse_fail_slow_levels),
                    now,
                )
            };
            if !(lo..=hi).contains(&level) {
                return Err(refuse(
                    RefusalKind::Movement,
                    format!(
                        "{}'s horse can go from {} to {} this turn",
                        f.name,
                        self.speed_name(lo),
                        self.speed_name(hi.min(self.top_level()))
                    ),
                )
                .by(f.id));
            }
            if level != now {
                work.push(Event::MountSpeed {
                    figure: f.id,
                    level,
                });
            }
            if p.charge {
                pace = Pace::Charge;
            } else if level >= 2 {
                pace = Pace::Doubletime;
            }
            self.data.horse_speed_in(level)
        } else {
            if !ordered {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!(
                        "{} has no movement order (forward march, formed charge, follow him)",
                        f.name
                    ),
                )
                .by(f.id));
            }
            if (p.run || p.charge) && order != "formed-charge" {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!(
                        "running and charging need a formed charge order; {} has {order}",
                        f.name
                    ),
                ));
            }
            if p.charge {
                pace = Pace::Charge;
            } else if p.run {
                pace = Pace::Doubletime;
            }
            if p.run || p.charge {
                self.data.movement.run_in
            } else {
                self.data.movement.foot_in
            }
        };
        work.push(Event::Measured(
            Length::<Inch>::path(length, &f.placement)
                .reading(format!("{}'s move", f.name), &[allowance]),
        ));
        if length > allowance + MOVE_SLACK_IN {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may move {allowance} in; the path is {length:.1} in",
                    f.name
                ),
            )
            .by(f.id));
        }
        if p.charge {
            let last = f
                .status
                .get("charged-turn")
                .and_then(|t| t.parse::<u32>().ok());
            let run = if last.is_some_and(|t| t + 1 == state.turn) {
                status_num(f, "charge-turns") + 1
            } else {
                1
            };
            if run > self.data.melee.charge_turns_max && !f.status.contains_key("tireless") {
                return Err(refuse(
                    RefusalKind::AlreadyActed,
                    format!(
                        "{} has charged {} turns running: fatigue stops a third",
                        f.name, self.data.melee.charge_turns_max
                    ),
                )
                .by(f.id));
            }
            work.push(set(f.id, "charging", Some("true".into())));
            work.push(set(f.id, "charge-turns", Some(run.to_string())));
            work.push(set(f.id, "charged-turn", Some(state.turn.to_string())));
        }
        let end = *path.last().unwrap_or(&f.placement.center_in_table);
        let heading = path
            .windows(2)
            .rev()
            .find(|w| (w[1] - w[0]).norm() > f64::EPSILON)
            .map_or(f.placement.facing_deg, |w| bearing_deg(w[0], w[1]));
        work.push(Event::Moved {
            figure: f.id,
            to_in: end,
            facing_deg: crate::geometry::normalize_deg(p.facing_deg.unwrap_or(heading)),
            pace,
            distance_in: length,
            through_rough: false,
        });
        work.push(set(f.id, "moved-in", Some(format!("{length}"))));
        work.push(set(f.id, "moved-turn", Some(state.turn.to_string())));
        self.minefields(&mut work, f.id, &path, dice)?;
        Ok(work.into_events())
    }

    /// Mine rolls for a move along `path` through enemy minefield squares.
    fn minefields(
        &self,
        work: &mut Work,
        id: FigureId,
        path: &[Point2<f64>],
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let side = work.fig(id)?.side;
        let squares: Vec<Point2<f64>> = work
            .now
            .sides
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != side)
            .filter_map(|(_, s)| s.status.get("mines"))
            .flat_map(|m| m.split(';'))
            .filter_map(|xy| {
                let (x, y) = xy.split_once(',')?;
                Some(Point2::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
            })
            .collect();
        let side_in = self.data.special.mine_square_in;
        for corner in squares {
            let square = square_outline(corner, side_in);
            let rolls = square_entries(path, &square);
            if rolls == 0 {
                continue;
            }
            let name = work.fig(id)?.name.clone();
            work.push(Event::Odds {
                purpose: format!(
                    "{name} in the minefield square at {},{}",
                    corner.x, corner.y
                ),
                odds: named(&[("p_mine_explodes", mine_p(&self.data, rolls))]),
            });
            let faces = work.roll(dice, rolls as usize, 10, "mine", Some(id))?;
            if faces
                .iter()
                .any(|r| r.face <= self.data.special.mine_explodes_max)
            {
                let at = work.fig(id)?.placement.center_in_table;
                work.note(format!("a mine explodes under {name}"));
                self.blast(work, at, self.data.special.mine_blast_in, dice)?;
                if !in_play(work.fig(id)?) {
                    break;
                }
            }
        }
        Ok(())
    }

    /// A grenade (or mine) explosion: every figure touched takes 1d10.
    fn blast(
        &self,
        work: &mut Work,
        at: Point2<f64>,
        radius_in: f64,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let caught: Vec<FigureId> = work
            .now
            .figures
            .iter()
            .filter(|f| in_play(f) && disc_touches_base(at, radius_in, &f.placement))
            .map(|f| f.id)
            .collect();
        for id in caught {
            let d = work.roll1(
                dice,
                self.data.special.grenade_damage_sides,
                "blast damage",
                Some(id),
            )?;
            self.apply_damage(work, id, d, dice)?;
        }
        Ok(())
    }

    fn speed_name(&self, level: u8) -> String {
        self.data
            .movement
            .horse_speeds
            .get(usize::from(level))
            .cloned()
            .unwrap_or_else(|| level.to_string())
    }

    fn top_level(&self) -> u8 {
        u8::try_from(self.data.movement.horse_speeds.len().saturating_sub(1)).unwrap_or(u8::MAX)
    }

    fn resolve_load_gun(
        &self,
        state: &GameState,
        p: &LoadGunParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "load-gun", &["rally", "command", "movement"])?;
        let g = figure(state, &p.gun)?;
        require_active_side(NAME, state, g)?;
        let w = self.weapon(g)?;
        let Some(kind) = w.artillery else {
            return Err(refuse(RefusalKind::CannotDo, format!("{} has no gun", g.name)).by(g.id));
        };
        let ammo = match (kind, p.ammo.as_deref()) {
            (ArtilleryKind::Cannon, Some(a @ ("ball" | "grapeshot"))) => a.to_owned(),
            (ArtilleryKind::Cannon, _) => {
                return Err(refuse(
                    RefusalKind::NotLoaded,
                    "a cannon loads `ball` or `grapeshot`",
                ));
            }
            (_, None) => "shot".to_owned(),
            (_, Some(other)) => {
                return Err(refuse(
                    RefusalKind::NotLoaded,
                    format!("{} cannot load {other}", g.weapon),
                ));
            }
        };
        let mut work = Work::new(state);
        if let Some(with) = g.status.get("loaded-with") {
            work.note(format!("{} is loaded with {with} already", g.name));
            return Ok(work.into_events());
        }
        work.push(Event::Odds {
            purpose: format!("{} reloads", g.name),
            odds: named(&[(
                "p_reloaded",
                f64::from(w.reload_max.min(self.data.fire.die)) / f64::from(self.data.fire.die),
            )]),
        });
        let r = work.roll1(dice, self.data.fire.die, "reload", Some(g.id))?;
        if r <= w.reload_max {
            work.push(set(g.id, "loaded-with", Some(ammo.clone())));
            work.note(format!(
                "{} is loaded with {ammo} (marker face down)",
                g.name
            ));
        } else {
            work.note(format!("{} is still reloading", g.name));
        }
        Ok(work.into_events())
    }

    /// Where a scattered shot lands: d6 inches in a d12 clock direction
    /// (12 = straight on from the thrower).
    fn scatter(
        &self,
        work: &mut Work,
        from: Point2<f64>,
        aim: Point2<f64>,
        dice: &mut dyn Dice,
        who: FigureId,
    ) -> Result<Point2<f64>, RuleError> {
        let s = &self.data.special;
        let dist = work.roll1(dice, s.scatter_die, "scatter inches", Some(who))?;
        let dir = work.roll1(
            dice,
            s.scatter_direction_faces,
            "scatter direction",
            Some(who),
        )?;
        let step = 360.0 / f64::from(s.scatter_direction_faces.max(1));
        // Clockwise from straight on, as a clock face is read.
        let bearing = bearing_deg(from, aim) - f64::from(dir % s.scatter_direction_faces) * step;
        let landed = point_at(aim, bearing, f64::from(dist));
        work.note(format!(
            "the shot scatters {dist} in toward {dir} o'clock, to ({:.1}, {:.1})",
            landed.x, landed.y
        ));
        Ok(landed)
    }

    /// Figures under a quarter-sized target area at `at`.
    fn under_quarter(&self, state: &GameState, at: Point2<f64>) -> Vec<FigureId> {
        state
            .figures
            .iter()
            .filter(|f| {
                in_play(f)
                    && disc_touches_base(
                        at,
                        self.data.special.quarter_diameter_in / 2.0,
                        &f.placement,
                    )
            })
            .map(|f| f.id)
            .collect()
    }

    fn aim_point(
        state: &GameState,
        target: Option<&String>,
        at_in: Option<[f64; 2]>,
    ) -> Result<(Point2<f64>, Option<FigureId>), RuleError> {
        match (target, at_in) {
            (Some(name), None) => {
                let t = figure(state, name)?;
                Ok((t.placement.center_in_table, Some(t.id)))
            }
            (None, Some(p)) => Ok((point(p), None)),
            _ => Err(refuse(
                RefusalKind::Malformed,
                "name a `target` figure or an `at_in` point, not both",
            )),
        }
    }

    fn resolve_artillery(
        &self,
        state: &GameState,
        p: &ArtilleryParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "artillery", &["shooting"])?;
        let g = figure(state, &p.gun)?;
        require_active_side(NAME, state, g)?;
        if !in_play(g) || routed(g) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} cannot serve the gun", g.name),
            )
            .by(g.id));
        }
        let w = self.weapon(g)?.clone();
        let Some(kind) = w.artillery else {
            return Err(refuse(RefusalKind::CannotDo, format!("{} has no gun", g.name)).by(g.id));
        };
        if g.status.get("moved-turn") == Some(&state.turn.to_string()) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} moved this turn: it fires next turn", g.name),
            )
            .by(g.id));
        }
        let from = g.placement.center_in_table;
        let mut work = Work::new(state);
        let ammo = g.status.get("loaded-with").cloned();
        if ammo.is_none() {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "{} is not loaded (`load-gun` before the shooting phase)",
                    g.name
                ),
            )
            .by(g.id));
        }
        work.push(set(g.id, "loaded-with", None));
        if kind == ArtilleryKind::Cannon && ammo.as_deref() == Some("grapeshot") {
            return self.grapeshot(work, g, dice);
        }
        let (aim, target) = Self::aim_point(state, p.target.as_ref(), p.at_in)?;
        let half_arc = self.data.special.artillery_arc_deg / 2.0;
        if angle_off_facing_deg(from, g.placement.facing_deg, aim) > half_arc {
            return Err(refuse(
                RefusalKind::OutOfArc,
                format!(
                    "the target is outside {}'s {} degree arc",
                    g.name, self.data.special.artillery_arc_deg
                ),
            ));
        }
        let range = (aim - from).norm();
        if range > w.range_in {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!("the target is {range:.1} in away, beyond {} in", w.range_in),
            ));
        }
        work.push(Event::Measured(
            Length::<Inch>::path(range, &g.placement)
                .reading(format!("{} to the target", g.name), &[w.range_in]),
        ));
        let (dmg_dice, dmg_add, p_hit, modifier) = match kind {
            ArtilleryKind::Catapult => (
                self.data.special.catapult_damage_dice,
                self.data.special.catapult_damage_add,
                f64::from(self.data.special.catapult_hit_max) / f64::from(self.data.fire.die),
                0,
            ),
            ArtilleryKind::BoltThrower => {
                let m = target
                    .and_then(|t| state.figure(t))
                    .map_or(0, |t| self.fire_modifier(g, t, false));
                (
                    self.data.special.bolt_thrower_damage_dice,
                    self.data.special.bolt_thrower_damage_add,
                    hit_p(self.data.fire.die, m, g.experience),
                    m,
                )
            }
            ArtilleryKind::Cannon => {
                let m = target
                    .and_then(|t| state.figure(t))
                    .map_or(0, |t| self.fire_modifier(g, t, false));
                (
                    w.damage_dice,
                    w.damage_add,
                    hit_p(self.data.fire.die, m, g.experience),
                    m,
                )
            }
        };
        let dist = damage_distribution(dmg_dice, 10, dmg_add);
        let mut odds = vec![("p_hit", p_hit)];
        if let Some(t) = target.and_then(|t| state.figure(t)) {
            let (_, _, k) = damage_odds(
                &dist,
                &self.shot_for(state, t, 0, 0),
                &Self::deck_pile(state, t.side),
            );
            odds.push(("p_target_killed", p_hit * k));
        }
        work.push(Event::Odds {
            purpose: format!("{} fires {}", g.name, ammo.unwrap_or_default()),
            odds: named(&odds),
        });
        let h = work.roll1(dice, self.data.fire.die, "to hit", Some(g.id))?;
        let landed = match kind {
            ArtilleryKind::Catapult if h <= self.data.special.catapult_hit_max => Some(aim),
            ArtilleryKind::Catapult => Some(self.scatter(&mut work, from, aim, dice, g.id)?),
            _ if hits(h, modifier, g.experience) => Some(aim),
            _ => None,
        };
        let Some(landed) = landed else {
            work.note(format!("{} misses", g.name));
            return Ok(work.into_events());
        };
        let struck = match (kind, target) {
            (ArtilleryKind::BoltThrower, Some(t)) => vec![t],
            _ => self.under_quarter(&work.now, landed),
        };
        if struck.is_empty() {
            work.note("the shot strikes empty ground");
        }
        for id in struck {
            let d = work.roll(dice, dmg_dice as usize, 10, "damage", Some(g.id))?;
            self.apply_damage(&mut work, id, total(&d) + dmg_add, dice)?;
        }
        Ok(work.into_events())
    }

    /// Grapeshot: every enemy stand within 8 in in the 45 degree cone takes
    /// 1d10 before armour.
    fn grapeshot(
        &self,
        mut work: Work,
        g: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let sp = &self.data.special;
        let state = work.now.clone();
        let caught: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|t| {
                t.side != g.side
                    && in_play(t)
                    && centre_gap_in(g, t) <= sp.grapeshot_range_in
                    && in_cone(&g.placement, sp.grapeshot_cone_deg, 0.0, &t.placement).value
            })
            .collect();
        let dist = damage_distribution(1, sp.grapeshot_damage_sides, 0);
        let mut odds = Vec::new();
        for t in &caught {
            let (_, _, k) = damage_odds(
                &dist,
                &self.shot_for(&state, t, 0, 0),
                &Self::deck_pile(&state, t.side),
            );
            odds.push(NamedOdds {
                name: format!("p_killed {}", t.name),
                p: k,
            });
        }
        work.push(Event::Odds {
            purpose: format!("{} fires grapeshot", g.name),
            odds,
        });
        if caught.is_empty() {
            work.note(format!(
                "no enemy within {} in in {}'s {} degree cone",
                sp.grapeshot_range_in, g.name, sp.grapeshot_cone_deg
            ));
        }
        for t in caught {
            let d = work.roll1(dice, sp.grapeshot_damage_sides, "grapeshot", Some(t.id))?;
            self.apply_damage(&mut work, t.id, d, dice)?;
        }
        Ok(work.into_events())
    }

    fn resolve_grenade(
        &self,
        state: &GameState,
        p: &GrenadeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "grenade", &["shooting"])?;
        let s = figure(state, &p.thrower)?;
        require_active_side(NAME, state, s)?;
        if !in_play(s) || routed(s) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot throw", s.name)).by(s.id));
        }
        let left = status_num(s, "grenades");
        if left == 0 {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} has no grenades", s.name)).by(s.id),
            );
        }
        let (aim, target) = Self::aim_point(state, p.target.as_ref(), p.at_in)?;
        let from = s.placement.center_in_table;
        let range = (aim - from).norm();
        let sp = &self.data.special;
        if range > sp.grenade_range_in {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "grenades reach {} in; that is {range:.1} in",
                    sp.grenade_range_in
                ),
            ));
        }
        let modifier = target
            .and_then(|t| state.figure(t))
            .map_or(0, |t| self.fire_modifier(s, t, false));
        let mut work = Work::new(state);
        let p_on = hit_p(self.data.fire.die, modifier, s.experience);
        let mut odds = vec![("p_on_target", p_on)];
        if let Some(t) = target.and_then(|t| state.figure(t)) {
            let (_, _, k) = damage_odds(
                &damage_distribution(1, sp.grenade_damage_sides, 0),
                &self.shot_for(state, t, 0, 0),
                &Self::deck_pile(state, t.side),
            );
            odds.push(("p_target_killed_if_on_target", k));
        }
        work.push(Event::Odds {
            purpose: format!("{} throws a grenade", s.name),
            odds: named(&odds),
        });
        work.push(set(s.id, "grenades", Some((left - 1).to_string())));
        let h = work.roll1(dice, self.data.fire.die, "grenade throw", Some(s.id))?;
        let landed = if hits(h, modifier, s.experience) {
            aim
        } else {
            self.scatter(&mut work, from, aim, dice, s.id)?
        };
        self.blast(&mut work, landed, sp.mine_blast_in, dice)?;
        Ok(work.into_events())
    }

    fn resolve_impact(
        &self,
        state: &GameState,
        p: &ImpactParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "horse-impact", &["melee"])?;
        let r = figure(state, &p.rider)?;
        let t = figure(state, &p.footman)?;
        require_active_side(NAME, state, r)?;
        if !r.mounted() || t.mounted() || r.side == t.side {
            return Err(refuse(
                RefusalKind::CannotDo,
                "a rider's horse hits an enemy on foot",
            ));
        }
        if !in_play(r) || !in_play(t) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                "both figures must be in the fight",
            ));
        }
        if edge_gap_in(r, t) > self.data.fire.adjacent_in {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!("{}'s horse does not reach {}", r.name, t.name),
            )
            .by(r.id));
        }
        let speed = self.data.horse_speed_in(r.mount_level.unwrap_or(0));
        let size = match r.status.get("horse").map(String::as_str) {
            Some("small") => self.data.horse_impact.small_add,
            Some("big") => self.data.horse_impact.big_add,
            _ => 0,
        };
        let mut work = Work::new(state);
        let dist = horse_impact_distribution(&self.data, speed, size);
        if dist.is_empty() {
            work.note(format!(
                "{}'s horse is under {} in: it just stops",
                r.name, self.data.horse_impact.stops_under_in
            ));
            return Ok(work.into_events());
        }
        let number = u8::try_from(status_num(r, "horsemanship"))
            .ok()
            .filter(|n| *n > 0)
            .unwrap_or(r.experience);
        let pile = Self::deck_pile(state, r.side);
        let p_in = activation_odds(&self.data, &pile, number, r.leader);
        let (_, _, k) = damage_odds(
            &dist,
            &self.shot_for(state, t, 0, 0),
            &Self::deck_pile(state, t.side),
        );
        work.push(Event::Odds {
            purpose: format!("{}'s horse at {}", r.name, t.name),
            odds: named(&[("p_goes_in", p_in), ("p_footman_killed", p_in * k)]),
        });
        let card = Self::draw(&mut work, r.side, dice)?;
        if !activation_passes(&self.data, card, number, r.leader) {
            work.note(format!("{}'s horse sheers off", r.name));
            return Ok(work.into_events());
        }
        let face = work.roll1(dice, self.data.horse_impact.die, "horse impact", Some(r.id))?;
        let damage = self
            .data
            .horse_impact_damage(face, speed, size)
            .unwrap_or(0);
        work.note(format!("{}'s horse knocks {} down", r.name, t.name));
        self.apply_damage(&mut work, t.id, damage, dice)?;
        Ok(work.into_events())
    }

    fn resolve_follow(&self, state: &GameState, p: &FollowParams) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "follow-through", &["follow-through"])?;
        let f = figure(state, &p.figure)?;
        require_active_side(NAME, state, f)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot move", f.name)).by(f.id));
        }
        let moved: f64 = f
            .status
            .get("moved-in")
            .filter(|_| f.status.get("moved-turn") == Some(&state.turn.to_string()))
            .and_then(|m| m.parse().ok())
            .unwrap_or(0.0);
        let allowance = self.data.follow_through_in(f.mounted(), moved);
        let to = point(p.to_in);
        let d = (to - f.placement.center_in_table).norm();
        if d > allowance + MOVE_SLACK_IN {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may follow through {allowance} in; that is {d:.2} in",
                    f.name
                ),
            )
            .by(f.id));
        }
        Ok(vec![
            Event::Measured(
                Length::<Inch>::path(d, &f.placement)
                    .reading(format!("{}'s follow-through", f.name), &[allowance]),
            ),
            Event::Moved {
                figure: f.id,
                to_in: to,
                facing_deg: crate::geometry::normalize_deg(
                    p.facing_deg.unwrap_or(f.placement.facing_deg),
                ),
                pace: Pace::Walk,
                distance_in: d,
                through_rough: false,
            },
        ])
    }

    fn resolve_morale(
        &self,
        state: &GameState,
        p: &MoraleParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let f = figure(state, &p.figure)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is not there to check", f.name),
            )
            .by(f.id));
        }
        let mut work = Work::new(state);
        self.morale_checks(&mut work, vec![(f.id, p.reason.clone())], dice)?;
        Ok(work.into_events())
    }

    fn end_phase(state: &GameState, phases: usize) -> Vec<Event> {
        let next = next_phase_event(state, phases);
        let mut ev = vec![next.clone()];
        // Orders and the charge bonus last one turn.
        if let Event::PhaseChanged { turn, .. } = next
            && turn != state.turn
        {
            for f in &state.figures {
                if f.status
                    .get("order")
                    .is_some_and(|o| o != "independent-fire")
                {
                    ev.push(set(f.id, "order", None));
                }
                if f.status.contains_key("charging") {
                    ev.push(set(f.id, "charging", None));
                }
            }
        }
        ev
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::EndPhase => Ok(Self::end_phase(state, self.data.turn.phases.len())),
            Command::SoldiersInTime(action) => match action {
                Action::Rally(p) => self.resolve_rally(state, p, dice),
                Action::Activate(p) => self.resolve_activate(state, p, dice),
                Action::LoadGun(p) => self.resolve_load_gun(state, p, dice),
                Action::Move(p) => self.resolve_move(state, p, dice),
                Action::Fire(p) => self.resolve_fire(state, p, dice),
                Action::Volley(p) => self.resolve_volley(state, p, dice),
                Action::Artillery(p) => self.resolve_artillery(state, p, dice),
                Action::Grenade(p) => self.resolve_grenade(state, p, dice),
                Action::Melee(p) => self.resolve_melee(state, p, dice),
                Action::HorseImpact(p) => self.resolve_impact(state, p, dice),
                Action::FollowThrough(p) => self.resolve_follow(state, p),
                Action::MoraleCheck(p) => self.resolve_morale(state, p, dice),
            },
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }
    }
}

impl RuleSet for SoldiersInTimeRules {
    fn name(&self) -> &str {
        NAME
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions()
    }

    fn phases(&self) -> Vec<String> {
        self.data.turn.phases.clone()
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapons.contains_key(name)
    }

    fn knows_melee_weapon(&self, name: &str) -> bool {
        self.data.melee_weapon.contains_key(name)
    }

    fn experience_range(&self) -> (u8, u8) {
        (1, 10)
    }

    fn mount_level(&self, name: &str) -> Option<u8> {
        self.data
            .movement
            .horse_speeds
            .iter()
            .position(|s| s == name)
            .and_then(|i| u8::try_from(i).ok())
    }

    /// Each side gets a full deck of playing cards.
    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        for side in 0..state.sides.len() {
            let name = deck_name(state, side);
            if state.deck(&name).is_none() {
                state.decks.push(Deck {
                    name,
                    draw: full_deck(),
                    discard: Vec::new(),
                    held: Vec::new(),
                });
            }
        }
        Ok(())
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.resolve_inner(state, command, &mut CheckDice)
            .map(|_| ())
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        // The odds are computed as the command resolves; read them back.
        Ok(crate::rules::odds_from_events(self.resolve_inner(
            state,
            command,
            &mut CheckDice,
        )?))
    }

    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        crate::rules::action::parse_action_or_shared(
            NAME,
            Action::NAMES,
            || Action::parse(name, params).map(Command::SoldiersInTime),
            name,
            params,
        )
    }

    fn overlays(
        &self,
        state: &GameState,
        figure: FigureId,
    ) -> Vec<crate::rules::overlay::OverlayShape> {
        self.overlay_shapes(state, figure)
    }

    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.resolve_inner(state, command, dice)
    }
}

/// The figure ids of a list of names (for tests and scripts).
pub fn ids(state: &GameState, names: &[&str]) -> Vec<FigureId> {
    names
        .iter()
        .filter_map(|n| state.figure_named(n))
        .map(|f| f.id)
        .collect()
}

/// This rule set refuses the command now, for a rule of `kind`.
fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    refusal(NAME, kind, why)
}
