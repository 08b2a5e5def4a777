//! The Soldiers in Time engine: `activate` (an order's activation card),
//! `fire` (reload d10, to-hit d10, damage, save card), `volley` (each man
//! of a list fires at the nearest enemy), `melee` and
//! `end-phase`, as [`Command::RuleAction`]s.
//!
//! # Conventions
//! Table inches. Each side draws from its own deck `<side> cards` (a full
//! 52-card deck, reshuffled when empty); side status `colour` (`red` or
//! `black`) decides which face cards are its own. Figure status: `armour`,
//! `order`, `routed`, `charging`.

use serde::Deserialize;

use super::{
    Card, Damage, NAME, Shot, SoldiersInTime, activation_odds, activation_passes, damage_result,
    full_deck, hits, melee_base, save_passes, shot_odds,
};
use crate::game::{Command, Deck, Event, Figure, FigureId, GameState, StatusOf};
use crate::rules::action::{CheckDice, next_phase_event, parse_params};
use crate::rules::dice::{Dice, total};
use crate::rules::odds::{NamedOdds, named};
use crate::rules::stand_to::Wound;
use crate::rules::{RuleError, RuleSet};

/// Soldiers in Time as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct SoldiersInTimeRules {
    pub data: SoldiersInTime,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActivateParams {
    leader: String,
    order: String,
    /// The men the order is for (those within command range obey).
    men: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FireParams {
    shooter: String,
    /// None: the nearest enemy in the fight.
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    snap: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VolleyParams {
    /// The men who shoot, in order; each at the nearest enemy.
    men: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MeleeParams {
    a: String,
    b: String,
}

fn not_allowed(msg: impl Into<String>) -> RuleError {
    RuleError::NotAllowed(msg.into())
}

fn figure<'a>(state: &'a GameState, name: &str) -> Result<&'a Figure, RuleError> {
    state.figure_named(name).ok_or(RuleError::Unknown {
        what: "figure",
        name: name.to_owned(),
    })
}

/// The deck a side draws from.
pub fn deck_name(state: &GameState, side: usize) -> String {
    format!(
        "{} cards",
        state.sides.get(side).map_or("?", |s| s.name.as_str())
    )
}

fn status_num(f: &Figure, key: &str) -> u32 {
    f.status.get(key).and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn is_red(state: &GameState, side: usize) -> bool {
    state
        .sides
        .get(side)
        .is_some_and(|s| s.status.get("colour").is_some_and(|c| c == "red"))
}

impl SoldiersInTimeRules {
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: SoldiersInTime::builtin()?,
        })
    }

    /// Is a leader of the figure's side (other than the figure) within
    /// command range?
    fn leader_in_range(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|l| {
            l.leader
                && l.active()
                && l.side == f.side
                && (l.placement.center_in_table - f.placement.center_in_table).norm()
                    <= self.data.command.range_in
        })
    }

    /// Draws one card from a side's deck (reshuffling an empty deck first).
    fn draw(
        state: &GameState,
        side: usize,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
        drawn_before: &[String],
    ) -> Result<Card, RuleError> {
        let name = deck_name(state, side);
        let deck = state.deck(&name).ok_or(RuleError::Unknown {
            what: "deck",
            name: name.clone(),
        })?;
        let mut pile: Vec<String> = deck.draw.clone();
        for c in drawn_before {
            if let Some(i) = pile.iter().position(|x| x == c) {
                pile.remove(i);
            }
        }
        if pile.is_empty() {
            ev.push(Event::DeckShuffled {
                deck: name.clone(),
                added: Vec::new(),
            });
            pile = full_deck();
        }
        let card = pile[dice.pick(pile.len())?].clone();
        ev.push(Event::CardDrawn {
            deck: name,
            card: card.clone(),
        });
        Card::parse(&card).ok_or_else(|| not_allowed(format!("`{card}` is not a playing card")))
    }

    fn resolve_activate(
        &self,
        state: &GameState,
        p: &ActivateParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let leader = figure(state, &p.leader)?;
        if !leader.leader || !leader.active() {
            return Err(not_allowed(format!("{} cannot give orders", leader.name)));
        }
        let men: Vec<&Figure> = p
            .men
            .iter()
            .map(|n| figure(state, n))
            .collect::<Result<_, _>>()?;
        let in_range: Vec<&Figure> = men
            .into_iter()
            .filter(|m| {
                m.active()
                    && (m.placement.center_in_table - leader.placement.center_in_table).norm()
                        <= self.data.command.range_in
            })
            .collect();
        let exps: Vec<u8> = in_range.iter().map(|m| m.experience).collect();
        let number = self
            .data
            .order_number(&p.order, leader.experience, &exps)
            .ok_or_else(|| not_allowed(format!("no order `{}`", p.order)))?;
        let deck = state
            .deck(&deck_name(state, leader.side))
            .map(|d| d.draw.clone())
            .unwrap_or_default();
        let mut ev = vec![Event::Odds {
            purpose: format!("{} orders {}", leader.name, p.order),
            odds: named(&[(
                "p_activates",
                activation_odds(&self.data, &deck, number, true),
            )]),
        }];
        let card = Self::draw(state, leader.side, dice, &mut ev, &[])?;
        let passed = activation_passes(&self.data, card, number, true);
        ev.push(Event::Note {
            text: format!(
                "{} {} the {} order against {number}",
                leader.name,
                if passed { "passes" } else { "fails" },
                p.order
            ),
        });
        if passed {
            for m in in_range.iter().map(|m| m.id).chain([leader.id]) {
                ev.push(Event::Status {
                    of: StatusOf::Figure(m),
                    key: "order".into(),
                    value: Some(p.order.clone()),
                });
            }
        }
        Ok(ev)
    }

    fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let s = figure(state, &p.shooter)?;
        let t = match &p.target {
            Some(name) => figure(state, name)?,
            None => state
                .figures
                .iter()
                .filter(|t| t.side != s.side && t.active())
                .min_by(|a, b| {
                    let da = (a.placement.center_in_table - s.placement.center_in_table).norm();
                    let db = (b.placement.center_in_table - s.placement.center_in_table).norm();
                    da.total_cmp(&db)
                })
                .ok_or_else(|| not_allowed("no enemy left in the fight"))?,
        };
        if !s.active() || !t.active() || s.status.contains_key("routed") {
            return Err(not_allowed(
                "both figures must be in the fight and the shooter not routed",
            ));
        }
        if s.side == t.side {
            return Err(not_allowed("no firing at one's own side"));
        }
        // Aimed fire needs a fire order; a man whose unit failed its
        // activation may still snap fire, but not the leader.
        let fire_orders = ["volley-fire", "independent-fire"];
        let ordered = s
            .status
            .get("order")
            .is_some_and(|o| fire_orders.contains(&o.as_str()));
        if !ordered && s.leader {
            return Err(not_allowed(format!("{} has no fire order", s.name)));
        }
        let snap = p.snap || !ordered;
        let w = self.data.weapons.get(&s.weapon).ok_or(RuleError::Unknown {
            what: "weapon",
            name: s.weapon.clone(),
        })?;
        let range = (t.placement.center_in_table - s.placement.center_in_table).norm();
        if range > w.range_in {
            return Err(not_allowed(format!(
                "{} is {range:.1} in away, beyond {} in",
                t.name, w.range_in
            )));
        }
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
        let t_leader = self.leader_in_range(state, t);
        let shot = Shot {
            fire_skill: s.experience,
            modifier,
            already_loaded: s.loaded,
            target_armour: status_num(t, "armour"),
            target_experience: t.experience,
            target_red: is_red(state, t.side),
            leader_in_range: t_leader,
        };
        let t_deck = state
            .deck(&deck_name(state, t.side))
            .map(|d| d.draw.clone())
            .unwrap_or_default();
        let o = shot_odds(&self.data, w, &shot, &t_deck);
        let mut ev = vec![
            Event::Measured {
                what: format!("{} to {}", s.name, t.name),
                value_in: range,
                sigma_in: s.placement.sigma_in.hypot(t.placement.sigma_in),
                too_close_to_call: false,
            },
            Event::Odds {
                purpose: format!("{} fires at {}", s.name, t.name),
                odds: named(&[
                    ("p_reloaded", o.p_reloaded),
                    ("p_hit", o.p_hit),
                    ("p_morale_check_only", o.p_morale_check_only),
                    ("p_killed", o.p_killed),
                ]),
            },
        ];
        if !s.loaded {
            let r = dice.roll(self.data.fire.die)?;
            ev.push(Event::Rolled {
                purpose: "reload".into(),
                figure: Some(s.id),
                dice: vec![r],
            });
            if r.face > w.reload_max {
                ev.push(Event::Note {
                    text: format!("{} is still reloading", s.name),
                });
                return Ok(ev);
            }
        }
        let h = dice.roll(self.data.fire.die)?;
        ev.push(Event::Rolled {
            purpose: "to hit".into(),
            figure: Some(s.id),
            dice: vec![h],
        });
        ev.push(Event::ShotFired {
            figure: s.id,
            target: t.id,
            mode: if snap {
                crate::game::FireMode::Snap
            } else {
                crate::game::FireMode::Aimed
            },
        });
        if !hits(h.face, modifier, s.experience) {
            ev.push(Event::Note {
                text: format!("{} misses", s.name),
            });
            return Ok(ev);
        }
        let dmg_rolls = dice.roll_n(w.damage_dice as usize, w.damage_sides)?;
        let damage = total(&dmg_rolls) + w.damage_add;
        ev.push(Event::Rolled {
            purpose: "damage".into(),
            figure: Some(s.id),
            dice: dmg_rolls,
        });
        self.apply_damage(state, t, damage, dice, &mut ev)?;
        Ok(ev)
    }

    /// Each man still able fires at the nearest enemy in turn; later shots
    /// see the results of earlier ones.
    fn resolve_volley(
        &self,
        state: &GameState,
        p: &VolleyParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut now = state.clone();
        let mut ev = Vec::new();
        for name in &p.men {
            let m = figure(&now, name)?;
            if !m.active() || m.status.contains_key("routed") {
                ev.push(Event::Note {
                    text: format!("{name} cannot fire"),
                });
                continue;
            }
            let shot = FireParams {
                shooter: name.clone(),
                target: None,
                snap: false,
            };
            match self.resolve_fire(&now, &shot, dice) {
                Ok(e) => {
                    for x in &e {
                        now.apply(x);
                    }
                    ev.extend(e);
                }
                Err(RuleError::NotAllowed(why)) => ev.push(Event::Note {
                    text: format!("{name} does not fire: {why}"),
                }),
                Err(other) => return Err(other),
            }
        }
        Ok(ev)
    }

    /// Damage against a figure: morale check or save card.
    fn apply_damage(
        &self,
        state: &GameState,
        t: &Figure,
        damage: u32,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        let leader = self.leader_in_range(state, t);
        match damage_result(damage, status_num(t, "armour"), t.experience) {
            Damage::MoraleCheck => {
                let card = Self::draw(state, t.side, dice, ev, &[])?;
                let passed = activation_passes(&self.data, card, t.experience, t.leader)
                    && (!card.is_face() || leader);
                ev.push(Event::Note {
                    text: format!(
                        "damage {damage} does not pass {}'s armour: morale check {}",
                        t.name,
                        if passed {
                            "passed"
                        } else {
                            "failed: routs 4 in"
                        }
                    ),
                });
                if !passed {
                    ev.push(Event::Status {
                        of: StatusOf::Figure(t.id),
                        key: "routed".into(),
                        value: Some("true".into()),
                    });
                }
            }
            Damage::Save(n) => {
                let card = Self::draw(state, t.side, dice, ev, &[])?;
                let saved = save_passes(card, n, is_red(state, t.side), leader);
                ev.push(Event::Note {
                    text: format!(
                        "damage {damage}: {} saves on {n} or under: {}",
                        t.name,
                        if saved { "saved" } else { "killed" }
                    ),
                });
                if !saved {
                    ev.push(Event::Wounded {
                        figure: t.id,
                        wound: Wound::Killed,
                        mount: false,
                    });
                }
            }
        }
        Ok(())
    }

    fn resolve_melee(
        &self,
        state: &GameState,
        p: &MeleeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let a = figure(state, &p.a)?;
        let b = figure(state, &p.b)?;
        if (a.placement.center_in_table - b.placement.center_in_table).norm() > 1.5 {
            return Err(not_allowed(format!(
                "{} and {} are not in contact",
                a.name, b.name
            )));
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
        let rolls = dice.roll_n(2, self.data.melee.die)?;
        let (sa, sb) = (ta + rolls[0].face as i32, tb + rolls[1].face as i32);
        let mut ev = vec![Event::Rolled {
            purpose: format!("melee {} ({ta:+}) against {} ({tb:+})", a.name, b.name),
            figure: Some(a.id),
            dice: rolls,
        }];
        if sa == sb {
            ev.push(Event::Note {
                text: "equal totals: nobody strikes home".into(),
            });
            return Ok(ev);
        }
        let loser = if sa > sb { b } else { a };
        let damage = sa.abs_diff(sb);
        self.apply_damage(state, loser, damage, dice, &mut ev)?;
        Ok(ev)
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::EndPhase => {
                let next = next_phase_event(state, self.data.turn.phases.len());
                let mut ev = vec![next.clone()];
                // Orders last one turn: clear them when a new turn begins.
                if let Event::PhaseChanged { turn, .. } = next
                    && turn != state.turn
                {
                    for f in state
                        .figures
                        .iter()
                        .filter(|f| f.status.contains_key("order"))
                    {
                        if f.status
                            .get("order")
                            .is_some_and(|o| o != "independent-fire")
                        {
                            ev.push(Event::Status {
                                of: StatusOf::Figure(f.id),
                                key: "order".into(),
                                value: None,
                            });
                        }
                    }
                }
                Ok(ev)
            }
            Command::RuleAction { action, params } => match action.as_str() {
                "activate" => self.resolve_activate(state, &parse_params(action, params)?, dice),
                "fire" => self.resolve_fire(state, &parse_params(action, params)?, dice),
                "volley" => self.resolve_volley(state, &parse_params(action, params)?, dice),
                "melee" => self.resolve_melee(state, &parse_params(action, params)?, dice),
                other => Err(RuleError::Unsupported {
                    rule_set: NAME.into(),
                    action: other.into(),
                }),
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
