//! The Little Colonial Rules engine: `draw` (the next order card; End of
//! Turn reshuffles), `play-reserved`, `fire` (area fire) and
//! `close-combat`, as [`Command::RuleAction`]s.
//!
//! # Conventions
//! Table inches in the state, cm in the rules (`cm_per_in`). The order
//! deck is `orders`; its cards are `<figure name>#<k>` and `end-of-turn`.
//! Figure status: `level` (raw .. elite), `command` (nco, leader,
//! platoon-officer ...), `cavalry`. Side status `chits` (the five morale
//! piles, comma separated) and `demoralised` (the levels that are).
//! Game status `card`: the card in play.

use nalgebra::{Point2, Vector2};
use serde::Deserialize;

use super::{LittleColonial, NAME, in_half_circle, removal_order, volley_odds};
use crate::game::{Command, Deck, Event, Figure, FigureId, GameState, Rank, StatusOf};
use crate::geometry::angle_off_facing_deg;
use crate::rules::action::{CheckDice, next_phase_event, parse_params};
use crate::rules::dice::Dice;
use crate::rules::odds::{NamedOdds, named};
use crate::rules::stand_to::Wound;
use crate::rules::{RuleError, RuleSet};

/// The order deck's name.
pub const ORDER_DECK: &str = "orders";
/// The End of Turn card.
pub const END_OF_TURN: &str = "end-of-turn";
/// Re-rolls of a tied close combat before it is left undecided.
const MAX_TIE_ROLLS: usize = 50;

#[derive(Debug, Clone)]
pub struct LittleColonialRules {
    pub data: LittleColonial,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawParams {
    /// Keep the card in hand instead of using it now.
    #[serde(default)]
    reserve: bool,
    /// Reinforcements' cards join the deck at this reshuffle.
    #[serde(default)]
    reinforcements: Vec<String>,
    /// What the activated men do at once: `fire` (every soldier of the
    /// card's officer within his command radius fires at the nearest
    /// enemy, in formation).
    #[serde(default)]
    then: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayParams {
    card: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FireParams {
    firers: Vec<String>,
    /// A figure of the side fired at; the nearest of them in the arc is
    /// the target.
    target: String,
    /// In formation: the 90 degree arc applies.
    #[serde(default)]
    formation: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CombatParams {
    a: String,
    b: String,
    #[serde(default)]
    a_add: i32,
    #[serde(default)]
    b_add: i32,
    #[serde(default)]
    a_single_rank: bool,
    #[serde(default)]
    b_single_rank: bool,
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

/// The figure named on an order card.
pub fn card_owner<'a>(state: &'a GameState, card: &str) -> Option<&'a Figure> {
    let name = card.rsplit_once('#').map_or(card, |(n, _)| n);
    state.figure_named(name)
}

fn parse_piles(s: Option<&String>) -> Vec<u32> {
    s.map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default()
}

impl LittleColonialRules {
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: LittleColonial::builtin()?,
        })
    }

    /// The cards a figure puts in the order deck.
    fn cards_of(&self, f: &Figure) -> u32 {
        let level = f.status.get("level").map_or("regular", String::as_str);
        let cavalry = f.status.contains_key("cavalry");
        match f.rank {
            Rank::Officer | Rank::Chief => self.data.officer_cards(level, cavalry).unwrap_or(1),
            Rank::Nco => self.data.deck.nco_cards,
            _ if f.leader => self.data.deck.leader_cards,
            _ => 0,
        }
    }

    fn radius_in(&self, f: &Figure) -> f64 {
        let rank = f.status.get("command").map_or("leader", String::as_str);
        self.data
            .command_radius_cm(rank, f.mounted() || f.status.contains_key("cavalry"))
            .unwrap_or(0.0)
            / self.data.scale.cm_per_in
    }

    /// Casualty book-keeping: chits off the first piles; a pile emptied
    /// demoralises its level.
    fn casualties(&self, state: &GameState, side: usize, n: u32, ev: &mut Vec<Event>) {
        let Some(s) = state.sides.get(side) else {
            return;
        };
        let mut piles = parse_piles(s.status.get("chits"));
        let mut left = n;
        for p in &mut piles {
            let take = left.min(*p);
            *p -= take;
            left -= take;
        }
        let demoralised: Vec<String> = piles
            .iter()
            .zip(&self.data.morale.piles)
            .filter(|(p, _)| **p == 0)
            .map(|(_, l)| l.clone())
            .collect();
        ev.push(Event::Status {
            of: StatusOf::Side(side),
            key: "chits".into(),
            value: Some(
                piles
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        });
        ev.push(Event::Status {
            of: StatusOf::Side(side),
            key: "demoralised".into(),
            value: (!demoralised.is_empty()).then(|| demoralised.join(",")),
        });
    }

    fn resolve_draw(
        &self,
        state: &GameState,
        p: &DrawParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let deck = state.deck(ORDER_DECK).ok_or(RuleError::Unknown {
            what: "deck",
            name: ORDER_DECK.into(),
        })?;
        if deck.draw.is_empty() {
            return Err(not_allowed("the order deck is empty"));
        }
        let eot =
            deck.draw.iter().filter(|c| *c == END_OF_TURN).count() as f64 / deck.draw.len() as f64;
        let card = deck.draw[dice.pick(deck.draw.len())?].clone();
        let mut ev = vec![
            Event::Odds {
                purpose: "next order card".into(),
                odds: named(&[("p_end_of_turn", eot)]),
            },
            Event::CardDrawn {
                deck: ORDER_DECK.into(),
                card: card.clone(),
            },
        ];
        if card == END_OF_TURN {
            ev.push(Event::DeckShuffled {
                deck: ORDER_DECK.into(),
                added: p.reinforcements.clone(),
            });
            ev.push(Event::Status {
                of: StatusOf::Game,
                key: "card".into(),
                value: None,
            });
            ev.push(Event::PhaseChanged {
                turn: state.turn + 1,
                active_side: 0,
                phase: 0,
            });
            return Ok(ev);
        }
        if p.reserve {
            ev.push(Event::CardReserved {
                deck: ORDER_DECK.into(),
                card,
            });
            return Ok(ev);
        }
        ev.push(Event::Status {
            of: StatusOf::Game,
            key: "card".into(),
            value: Some(card.clone()),
        });
        match p.then.as_deref() {
            None => {}
            Some("fire") => {
                let officer = card_owner(state, &card)
                    .ok_or_else(|| not_allowed(format!("nobody holds `{card}`")))?;
                let radius = self.radius_in(officer);
                let firers: Vec<&Figure> = state
                    .figures
                    .iter()
                    .filter(|f| {
                        f.side == officer.side
                            && f.active()
                            && matches!(f.rank, Rank::Private | Rank::Warrior)
                            && self.data.weapons.get(&f.weapon).is_some_and(|w| w.dice > 0)
                            && (f.placement.center_in_table - officer.placement.center_in_table)
                                .norm()
                                <= radius
                    })
                    .collect();
                let enemy = state
                    .figures
                    .iter()
                    .find(|f| f.side != officer.side && f.active());
                match (firers.is_empty(), enemy) {
                    (false, Some(enemy)) => {
                        ev.extend(self.fire_core(state, officer, &firers, enemy.side, true, dice)?);
                    }
                    _ => ev.push(Event::Note {
                        text: format!("{} has nobody to fire, or no enemy left", officer.name),
                    }),
                }
            }
            Some(other) => return Err(not_allowed(format!("unknown activated action `{other}`"))),
        }
        Ok(ev)
    }

    fn resolve_play(&self, state: &GameState, p: &PlayParams) -> Result<Vec<Event>, RuleError> {
        let held = state
            .deck(ORDER_DECK)
            .is_some_and(|d| d.held.contains(&p.card));
        if !held {
            return Err(not_allowed(format!("`{}` is not held in reserve", p.card)));
        }
        Ok(vec![
            Event::CardPlayed {
                deck: ORDER_DECK.into(),
                card: p.card.clone(),
            },
            Event::Status {
                of: StatusOf::Game,
                key: "card".into(),
                value: Some(p.card.clone()),
            },
        ])
    }

    fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let card = state
            .status
            .get("card")
            .ok_or_else(|| not_allowed("no order card is in play"))?;
        let officer =
            card_owner(state, card).ok_or_else(|| not_allowed(format!("nobody holds `{card}`")))?;
        let firers: Vec<&Figure> = p
            .firers
            .iter()
            .map(|n| figure(state, n))
            .collect::<Result<_, _>>()?;
        let firers: Vec<&Figure> = firers.into_iter().filter(|f| f.active()).collect();
        if firers.is_empty() || firers.iter().any(|f| f.side != officer.side) {
            return Err(not_allowed(format!(
                "the firers must be {}'s men",
                officer.name
            )));
        }
        let radius = self.radius_in(officer);
        let commanded = firers.iter().any(|f| {
            (f.placement.center_in_table - officer.placement.center_in_table).norm() <= radius
        });
        if !commanded {
            return Err(not_allowed(format!(
                "no firer is within {}'s command radius",
                officer.name
            )));
        }
        let aim = figure(state, &p.target)?;
        self.fire_core(state, officer, &firers, aim.side, p.formation, dice)
    }

    /// Area fire by `firers` at the nearest figure of `target_side` (in the
    /// 90 degree arc when in formation).
    fn fire_core(
        &self,
        state: &GameState,
        officer: &Figure,
        firers: &[&Figure],
        target_side: usize,
        formation: bool,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let _ = officer;
        let n = firers.len() as f64;
        let at = Point2::from(
            firers.iter().fold(Vector2::zeros(), |a, f| {
                a + f.placement.center_in_table.coords
            }) / n,
        );
        // The nearest enemy of the target's side in the arc.
        let eligible = |t: &Figure| {
            !formation
                || firers.iter().any(|f| {
                    angle_off_facing_deg(
                        f.placement.center_in_table,
                        f.placement.facing_deg,
                        t.placement.center_in_table,
                    ) <= self.data.fire.arc_deg / 2.0
                })
        };
        let target = state
            .figures
            .iter()
            .filter(|t| t.side == target_side && t.active() && eligible(t))
            .min_by(|a, b| {
                let da = (a.placement.center_in_table - at).norm();
                let db = (b.placement.center_in_table - at).norm();
                da.total_cmp(&db)
            })
            .ok_or_else(|| not_allowed("no target in the arc of fire"))?;
        let range_cm = (target.placement.center_in_table - at).norm() * self.data.scale.cm_per_in;
        let need = self.data.to_hit(range_cm).ok_or_else(|| {
            not_allowed(format!(
                "{} is out of range ({range_cm:.0} cm)",
                target.name
            ))
        })?;
        let mut dice_n = 0;
        let mut add = 0;
        for f in firers {
            let w = self.data.weapons.get(&f.weapon).ok_or(RuleError::Unknown {
                what: "weapon",
                name: f.weapon.clone(),
            })?;
            dice_n += w.dice;
            if f.mounted() {
                add = add.min(w.mounted_add);
            }
        }
        let o = volley_odds(&self.data, dice_n, need, add);
        let mut ev = vec![
            Event::Measured {
                what: format!("range to {}, cm", target.name),
                value_in: range_cm,
                sigma_in: 0.0,
                too_close_to_call: false,
            },
            Event::Odds {
                purpose: format!("{} dice needing {need}", dice_n),
                odds: named(&[
                    ("p_die_hits", o.p_die_hits),
                    ("p_no_hit", o.hits.first().copied().unwrap_or(1.0)),
                ]),
            },
        ];
        let rolls = dice.roll_n(dice_n as usize, self.data.fire.die)?;
        let hit_count = rolls
            .iter()
            .filter(|r| i64::from(r.face) + i64::from(add) >= i64::from(need))
            .count();
        ev.push(Event::Rolled {
            purpose: "fire".into(),
            figure: None,
            dice: rolls,
        });
        let saves = dice.roll_n(hit_count, self.data.fire.die)?;
        let saved = saves
            .iter()
            .filter(|r| r.face >= self.data.fire.save_face)
            .count();
        ev.push(Event::Rolled {
            purpose: "saves".into(),
            figure: None,
            dice: saves,
        });
        let hits = u32::try_from(hit_count - saved).unwrap_or(0);
        let radius_in = n / self.data.scale.cm_per_in;
        let mut area: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|t| {
                t.side == target.side
                    && t.active()
                    && in_half_circle(
                        target.placement.center_in_table,
                        at,
                        radius_in,
                        t.placement.center_in_table,
                    )
            })
            .collect();
        area.sort_by(|a, b| {
            let da = (a.placement.center_in_table - target.placement.center_in_table).norm();
            let db = (b.placement.center_in_table - target.placement.center_in_table).norm();
            da.total_cmp(&db)
        });
        let ranks: Vec<Rank> = area.iter().map(|f| f.rank).collect();
        let down: Vec<FigureId> = removal_order(&self.data, &ranks, hits)
            .into_iter()
            .map(|i| area[i].id)
            .collect();
        ev.push(Event::Note {
            text: format!(
                "{hits} hits after saves in a {n} cm half circle around {}: {} down",
                target.name,
                down.len()
            ),
        });
        let lost = u32::try_from(down.len()).unwrap_or(0);
        for id in down {
            ev.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: false,
            });
        }
        if lost > 0 {
            self.casualties(state, target.side, lost, &mut ev);
        }
        Ok(ev)
    }

    fn resolve_combat(
        &self,
        state: &GameState,
        p: &CombatParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let a = figure(state, &p.a)?;
        let b = figure(state, &p.b)?;
        let gap_in = (a.placement.center_in_table - b.placement.center_in_table).norm();
        if gap_in * self.data.scale.cm_per_in
            > self.data.close_combat.contact_cm + self.data.scale.cm_per_in
        {
            return Err(not_allowed(format!(
                "{} and {} are not in contact",
                a.name, b.name
            )));
        }
        let wins_ties = self.data.close_combat.single_rank_wins_ties;
        let mut ev = Vec::new();
        for _ in 0..MAX_TIE_ROLLS {
            let r = dice.roll_n(2, self.data.close_combat.die)?;
            let (ta, tb) = (r[0].face as i32 + p.a_add, r[1].face as i32 + p.b_add);
            ev.push(Event::Rolled {
                purpose: format!("close combat {} against {}", a.name, b.name),
                figure: Some(a.id),
                dice: r,
            });
            let a_wins = ta > tb || (ta == tb && wins_ties && p.a_single_rank && !p.b_single_rank);
            let b_wins = tb > ta || (ta == tb && wins_ties && p.b_single_rank && !p.a_single_rank);
            if a_wins || b_wins {
                let loser = if a_wins { b } else { a };
                ev.push(Event::Wounded {
                    figure: loser.id,
                    wound: Wound::Killed,
                    mount: false,
                });
                self.casualties(state, loser.side, 1, &mut ev);
                return Ok(ev);
            }
        }
        ev.push(Event::Note {
            text: "the combat stays tied".into(),
        });
        Ok(ev)
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::EndPhase => Ok(vec![next_phase_event(state, 1)]),
            Command::RuleAction { action, params } => match action.as_str() {
                "draw" => self.resolve_draw(state, &parse_params(action, params)?, dice),
                "play-reserved" => self.resolve_play(state, &parse_params(action, params)?),
                "fire" => self.resolve_fire(state, &parse_params(action, params)?, dice),
                "close-combat" => self.resolve_combat(state, &parse_params(action, params)?, dice),
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

impl RuleSet for LittleColonialRules {
    fn name(&self) -> &str {
        NAME
    }

    fn phases(&self) -> Vec<String> {
        vec!["orders".into()]
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapons.contains_key(name)
    }

    fn knows_melee_weapon(&self, _name: &str) -> bool {
        // Close combat modifiers come from formation, not weapons.
        true
    }

    fn experience_range(&self) -> (u8, u8) {
        (1, 5)
    }

    /// The order deck from the officers, NCOs and leaders, and each side's
    /// morale chits from its men's count.
    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        if state.deck(ORDER_DECK).is_none() {
            let mut draw = Vec::new();
            for f in &state.figures {
                for k in 1..=self.cards_of(f) {
                    draw.push(format!("{}#{k}", f.name));
                }
            }
            for _ in 0..self.data.deck.end_of_turn_cards {
                draw.push(END_OF_TURN.to_owned());
            }
            state.decks.push(Deck {
                name: ORDER_DECK.into(),
                draw,
                discard: Vec::new(),
                held: Vec::new(),
            });
        }
        for side in 0..state.sides.len() {
            let men = state.figures.iter().filter(|f| f.side == side).count();
            let piles = self
                .data
                .morale_piles(u32::try_from(men).unwrap_or(u32::MAX));
            state.sides[side]
                .status
                .entry("chits".into())
                .or_insert_with(|| {
                    piles
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                });
        }
        Ok(())
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.resolve_inner(state, command, &mut CheckDice)
            .map(|_| ())
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
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
