//! Stand To! as printed (issue 13): each test quotes the sentence of the
//! rule text it enforces. The "wrong today" ones failed on the code before
//! the fix (the failure is in each test's comment).

use crate::common::*;
use nalgebra::Point2;
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, Game, GameState, Pace};
use spotter::rules::dice::TypedDice;
use spotter::rules::stand_to::Wound;
use spotter::rules::stand_to::action::{Action as St, AimUse, FireMode, OrderVia};
use spotter::rules::stand_to::action::{Action, DismountParams, DrivePegParams, HoldBy};
use spotter::rules::stand_to::event::Event as StandToEvent;
use spotter::rules::stand_to::status::{side_st, st};
use spotter::rules::{RuleError, RuleSet};

fn game(s: GameState) -> Game {
    Game::new(s, rules_arc(), None).expect("game starts")
}

/// Ends phases until it is `phase` of the turn of `who`'s side, at least
/// one phase on.
fn advance_to(g: &mut Game, who: &str, phase: &str) {
    let side = g.state().figure_named(who).expect("figure").side;
    let want = phase_index(phase);
    loop {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .expect("end phase");
        if g.state().active_side == side && g.state().phase == want {
            return;
        }
    }
}

fn fire(g: &Game, shooter: &str, target: &str, mode: FireMode) -> Command {
    Command::StandTo(St::Fire {
        shooter: id(g.state(), shooter),
        target: id(g.state(), target),
        mode,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: false,
    })
}

fn refusal(r: Result<Vec<Event>, spotter::game::GameError>) -> spotter::core::Refusal {
    match r {
        Err(spotter::game::GameError::Rule(RuleError::Refused(r))) => r,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Dice for a shot that misses (white 1+1) so that the target stays up.
const MISS: [u32; 3] = [1, 1, 6];

fn rifleman_and_target(weapon: &str) -> Game {
    rifleman_at(weapon, 20.0)
}

fn rifleman_at(weapon: &str, range_in: f64) -> Game {
    let mut s = state_from(&format!(
        "{}{}",
        fig("Pte Carter", "British", weapon, 3, 10.0, 10.0, ""),
        fig(
            "Warrior",
            "Natives",
            "thrown-spear",
            3,
            10.0 + range_in,
            10.0,
            ""
        )
    ));
    at_phase(&mut s, "non-combat", "Pte Carter");
    game(s)
}

// ---- Wrong today: loading ----

/// "A breech-loading rifle can fire an aimed shot every other turn (load on
/// first turn, shoulder rifle and fire on second turn)."
///
/// Before the fix: `Load` then an aimed shot in the same turn was allowed
/// ("expected a refusal, got Ok([...ShotFired...])"), so the rifle fired
/// aimed every turn.
#[test]
fn a_breechloader_fires_aimed_every_other_turn() {
    let mut g = rifleman_and_target("breech-loading-rifle");
    let carter = id(g.state(), "Pte Carter");
    g.execute(
        Command::StandTo(St::Load { figure: carter }),
        &mut TypedDice::default(),
    )
    .expect("loads on the first turn");
    advance_to(&mut g, "Pte Carter", "fire");
    let r = refusal(g.execute(
        fire(&g, "Pte Carter", "Warrior", FireMode::Aimed),
        &mut TypedDice::new(MISS),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed, "{}", r.why);
    assert!(r.why.contains("every other turn"), "{}", r.why);
    // Second turn: shoulder rifle and fire.
    advance_to(&mut g, "Pte Carter", "fire");
    g.execute(
        fire(&g, "Pte Carter", "Warrior", FireMode::Aimed),
        &mut TypedDice::new(MISS),
    )
    .expect("fires on the second turn");
    // He cannot load again in the turn he fired.
    let r = refusal(g.execute(
        Command::StandTo(St::Load { figure: carter }),
        &mut TypedDice::default(),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed);
    assert_eq!(r.figure, Some(carter));
    assert!(
        r.why.contains(
            "Pte Carter has fired this turn; a breech-loading-rifle fires aimed every other turn"
        ),
        "{}",
        r.why
    );
    // Over six turns of load, fire, load, fire ... he gets three aimed shots.
    let mut shots = 1;
    for _ in 0..4 {
        advance_to(&mut g, "Pte Carter", "fire");
        let aimed = fire(&g, "Pte Carter", "Warrior", FireMode::Aimed);
        if g.check(&aimed).is_ok() {
            g.execute(aimed, &mut TypedDice::new(MISS)).unwrap();
            shots += 1;
        } else {
            g.execute(
                Command::StandTo(St::Load { figure: carter }),
                &mut TypedDice::default(),
            )
            .expect("loads in a turn he does not fire");
        }
    }
    assert_eq!(shots, 3, "an aimed shot every other turn");
}

/// "A breechloading rifle can be loaded and snapfired in a single turn":
/// the snapshot needs no loading turn, but it is his shot of the turn.
#[test]
fn a_breechloader_snapfires_every_turn_without_a_loading_turn() {
    // Rifles snapshoot at revolver ranges: 12 in is in its long band.
    let mut g = rifleman_at("breech-loading-rifle", 12.0);
    for _ in 0..3 {
        advance_to(&mut g, "Pte Carter", "fire");
        g.execute(
            fire(&g, "Pte Carter", "Warrior", FireMode::Snap),
            &mut TypedDice::new(MISS),
        )
        .expect("a snapshot each turn");
    }
}

/// The musket's loading (house value: three turns, data `aimed_load_turns`)
/// goes one turn at a time: loading takes the turn.
///
/// Before the fix: three `Load`s in one turn loaded the musket ("expected a
/// refusal, got Ok([Loaded { progress: 2 ..")), so it loaded in one turn.
#[test]
fn a_musket_loads_one_turn_at_a_time() {
    let mut g = rifleman_and_target("musket");
    let carter = id(g.state(), "Pte Carter");
    let turns = rules().data.weapon("musket").unwrap().aimed_load_turns;
    assert_eq!(turns, 3);
    g.execute(
        Command::StandTo(St::Load { figure: carter }),
        &mut TypedDice::default(),
    )
    .unwrap();
    let r = refusal(g.execute(
        Command::StandTo(St::Load { figure: carter }),
        &mut TypedDice::default(),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed);
    assert!(r.why.contains("has loaded this turn"), "{}", r.why);
    for _ in 1..turns {
        advance_to(&mut g, "Pte Carter", "non-combat");
        g.execute(
            Command::StandTo(St::Load { figure: carter }),
            &mut TypedDice::default(),
        )
        .unwrap();
    }
    assert!(g.state().figure(carter).unwrap().loaded);
    advance_to(&mut g, "Pte Carter", "fire");
    let r = refusal(g.execute(
        fire(&g, "Pte Carter", "Warrior", FireMode::Aimed),
        &mut TypedDice::new(MISS),
    ));
    assert!(r.why.contains("takes 3 turns to load"), "{}", r.why);
    advance_to(&mut g, "Pte Carter", "fire");
    g.execute(
        fire(&g, "Pte Carter", "Warrior", FireMode::Aimed),
        &mut TypedDice::new(MISS),
    )
    .expect("fires the turn after the third loading turn");
}

// ---- Wrong today: one order a leader a turn ----

fn two_leaders() -> Game {
    let mut s = state_from(&format!(
        "{}{}{}{}",
        fig(
            "Lt Smythe",
            "British",
            "revolver",
            3,
            10.0,
            10.0,
            "rank = \"officer\"\nleader = true"
        ),
        fig(
            "Sgt Bell",
            "British",
            "breech-loading-rifle",
            3,
            14.0,
            10.0,
            "rank = \"nco\"\nleader = true"
        ),
        fig(
            "Pte Adams",
            "British",
            "breech-loading-rifle",
            3,
            12.0,
            12.0,
            ""
        ),
        fig("Warrior", "Natives", "thrown-spear", 3, 60.0, 60.0, "")
    ));
    at_phase(&mut s, "non-combat", "Lt Smythe");
    game(s)
}

fn shout(g: &Game, giver: &str, order: &str) -> Command {
    Command::StandTo(St::Order {
        giver: id(g.state(), giver),
        to: vec![id(g.state(), "Pte Adams")],
        order: order.into(),
        via: OrderVia::Shout,
    })
}

/// "A leader can issue only one order per turn, so if he wants his men to
/// split up and perform individual tasks, it will take some time to
/// explain everything."
///
/// Before the fix: the limit counted orders per side, so the sergeant's
/// order after the lieutenant's was refused ("only one order a turn").
#[test]
fn each_leader_issues_one_order_per_turn() {
    let mut g = two_leaders();
    g.execute(
        shout(&g, "Lt Smythe", "form a skirmish line"),
        &mut TypedDice::default(),
    )
    .expect("the lieutenant's order");
    g.execute(
        shout(&g, "Sgt Bell", "fix bayonets"),
        &mut TypedDice::default(),
    )
    .expect("the sergeant gives his own order the same turn");
    let r = refusal(g.execute(
        shout(&g, "Lt Smythe", "commence firing at will"),
        &mut TypedDice::default(),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed);
    assert_eq!(r.figure, Some(id(g.state(), "Lt Smythe")));
    assert!(r.why.contains("only one order per turn"), "{}", r.why);
    // "On the next turn, the British player announces ..."
    advance_to(&mut g, "Lt Smythe", "non-combat");
    g.execute(
        shout(&g, "Lt Smythe", "commence firing at will"),
        &mut TypedDice::default(),
    )
    .expect("a new turn, a new order");
}

// ---- Wrong today: the charge's +1 ----

/// A warrior 5 in from a trooper, in the natives' move phase.
fn charge_state() -> Game {
    let mut s = state_from(&format!(
        "{}{}",
        fig(
            "Brave",
            "Natives",
            "thrown-spear",
            3,
            20.0,
            25.0,
            "shield = true"
        ),
        fig(
            "Trooper",
            "British",
            "breech-loading-carbine",
            3,
            20.0,
            20.0,
            ""
        )
    ));
    at_phase(&mut s, "move", "Brave");
    game(s)
}

fn charge_in(g: &mut Game) -> Vec<Event> {
    g.execute(
        Command::StandTo(St::Move {
            figure: id(g.state(), "Brave"),
            path_in: vec![Point2::new(20.0, 21.2)],
            facing_deg: 270.0,
            pace: Pace::Charge,
            mount_level: None,
        }),
        &mut TypedDice::default(),
    )
    .expect("the charge")
}

fn melee(g: &Game, a: &str, d: &str) -> Command {
    Command::StandTo(St::Melee {
        attackers: vec![id(g.state(), a)],
        defenders: vec![id(g.state(), d)],
    })
}

/// "A figure gets an immediate hand-to-hand attack when it charges to
/// within one inch of an enemy figure." The turn runs fire, melee, move:
/// the charge comes after the melee phase, so the attack is made at once,
/// in the move phase, with the charging +1; in the next melee phases the
/// two fight on without it.
///
/// Before the fix: the attack in the move phase was refused ("this is the
/// move phase, not melee"), and the +1 came in the opponent's melee phase.
#[test]
fn a_charge_into_contact_attacks_at_once_with_its_plus_one() {
    let mut g = charge_state();
    let ev = charge_in(&mut g);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::ChargedIntoContact { .. })))
    );
    // Spear +1, shield +1, charging +1 against the trooper's sabre +2.
    let ev = g
        .execute(
            melee(&g, "Brave", "Trooper"),
            &mut TypedDice::new([2, 3, 2, 4]),
        )
        .expect("the immediate attack");
    assert_eq!(melee_totals(&ev), (8, 8), "5 + 3 against 6 + 2");
    // Only one immediate attack.
    let r = refusal(g.execute(
        melee(&g, "Brave", "Trooper"),
        &mut TypedDice::new([3, 3, 1, 3]),
    ));
    assert_eq!(r.kind, RefusalKind::WrongPhase);
    // The opponent's melee phase: the brave still counts as charging for
    // the save against fire, but gets no +1 in the melee.
    advance_to(&mut g, "Trooper", "melee");
    let ev = g
        .execute(
            melee(&g, "Trooper", "Brave"),
            &mut TypedDice::new([2, 4, 2, 3]),
        )
        .expect("they fight on");
    assert_eq!(
        melee_totals(&ev),
        (8, 7),
        "no charging bonus after the charge"
    );
}

/// Only a figure that has just charged into contact attacks in the move
/// phase.
#[test]
fn no_melee_in_the_move_phase_without_a_charge() {
    let mut s = state_from(&format!(
        "{}{}",
        fig("Brave", "Natives", "thrown-spear", 3, 20.0, 21.0, ""),
        fig(
            "Trooper",
            "British",
            "breech-loading-carbine",
            3,
            20.0,
            20.0,
            ""
        )
    ));
    at_phase(&mut s, "move", "Brave");
    let g = game(s);
    assert_eq!(
        game_refusal_kind(g.check(&melee(&g, "Brave", "Trooper"))),
        RefusalKind::WrongPhase
    );
}

// ---- Concealment ----

fn hidden_in_scrub() -> Game {
    let scrub = "[[terrain]]\nname = \"scrub\"\nkinds = [\"soft-cover\"]\npolygon_in = [[15.0, 25.0], [25.0, 25.0], [25.0, 35.0], [15.0, 35.0]]\n";
    let mut s = state_from(&format!(
        "{scrub}{}{}",
        fig(
            "Tommy",
            "British",
            "lever-action-rifle",
            3,
            20.0,
            10.0,
            "facing_deg = 90.0"
        ),
        fig(
            "Lurker",
            "Natives",
            "thrown-spear",
            3,
            20.0,
            30.0,
            "concealed = true"
        )
    ));
    at_phase(&mut s, "fire", "Tommy");
    game(s)
}

/// "These figures are kept off the board. They function like other figures
/// in every respect, but they are not placed on the table until they are
/// sighted." Fire at a concealed figure is refused.
#[test]
fn fire_at_a_concealed_figure_is_refused() {
    let g = hidden_in_scrub();
    let r = refusal(
        g.check(&fire(&g, "Tommy", "Lurker", FireMode::Aimed))
            .map(|()| Vec::new()),
    );
    assert_eq!(r.kind, RefusalKind::OutOfSight);
    assert!(r.why.contains("concealed"), "{}", r.why);
}

/// "A figure in the open or which has fired is automatically seen by every
/// other figure with a clear line of sight."
#[test]
fn a_concealed_figure_who_enters_the_open_is_seen() {
    let mut g = hidden_in_scrub();
    advance_to(&mut g, "Lurker", "move");
    let lurker = id(g.state(), "Lurker");
    let walk = |to: (f64, f64)| {
        Command::StandTo(St::Move {
            figure: lurker,
            path_in: vec![Point2::new(to.0, to.1)],
            facing_deg: 270.0,
            pace: Pace::Walk,
            mount_level: None,
        })
    };
    // Within the scrub he stays hidden.
    let ev = g
        .execute(walk((20.0, 27.0)), &mut TypedDice::default())
        .unwrap();
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::Spotted { .. })))
    );
    assert!(g.state().figure(lurker).unwrap().concealed);
    advance_to(&mut g, "Lurker", "move");
    let ev = g
        .execute(walk((20.0, 23.5)), &mut TypedDice::default())
        .unwrap();
    assert!(ev.contains(&Event::StandTo(StandToEvent::Spotted { figure: lurker })));
    assert!(!g.state().figure(lurker).unwrap().concealed);
    // Now Tommy may shoot him.
    advance_to(&mut g, "Tommy", "fire");
    assert!(
        g.check(&fire(&g, "Tommy", "Lurker", FireMode::Aimed))
            .is_ok()
    );
}

// ---- Target priority ----

fn priority_state(order: Option<&str>) -> Game {
    let mut s = priority_state_from();
    if let Some(o) = order {
        let t = id(&s, "Tommy");
        s.figures[t.index()].rules.stand_to_mut().order = Some(o.into());
    }
    at_phase(&mut s, "fire", "Tommy");
    game(s)
}

/// "Targets must be nominated according to the following priority. 1. An
/// enemy already aimed at, a covered area, or a target that the figure has
/// been specifically ordered to shoot. 2. The nearest enemy or enemy group
/// that is a potential or actual danger; 3. The nearest enemy figure."
#[test]
fn target_priority_is_enforced_unless_ordered() {
    let g = priority_state(None);
    let r = refusal(
        g.check(&fire(&g, "Tommy", "Near", FireMode::Aimed))
            .map(|()| Vec::new()),
    );
    assert_eq!(r.kind, RefusalKind::NoOrder);
    assert!(r.why.contains("Charger"), "{}", r.why);
    assert!(
        g.check(&fire(&g, "Tommy", "Charger", FireMode::Aimed))
            .is_ok()
    );
    // "a target that the figure has been specifically ordered to shoot"
    let g = priority_state(Some("shoot Near"));
    assert!(g.check(&fire(&g, "Tommy", "Near", FireMode::Aimed)).is_ok());
}

/// "1. An enemy already aimed at" comes before the danger.
#[test]
fn the_enemy_aimed_at_comes_first() {
    let mut g = priority_state(None);
    let (tommy, near) = (id(g.state(), "Tommy"), id(g.state(), "Near"));
    // Aiming is a choice of the target too: he aims at Near this turn...
    g.execute(
        Command::StandTo(St::Aim {
            figure: tommy,
            target: near,
        }),
        &mut TypedDice::default(),
    )
    .unwrap();
    advance_to(&mut g, "Tommy", "fire");
    assert_eq!(rules().target_priority(g.state(), tommy), vec![near]);
    assert!(g.check(&fire(&g, "Tommy", "Near", FireMode::Aimed)).is_ok());
}

// ---- Preservation: shedding ----

fn broken_side(enemy_at: (f64, f64)) -> Game {
    let wall = "[[terrain]]\nname = \"kopje\"\nkinds = [\"blocking\"]\npolygon_in = [[18.0, 0.0], [19.0, 0.0], [19.0, 60.0], [18.0, 60.0]]\n";
    let mut s = state_from(&format!(
        "{wall}{}{}{}",
        fig(
            "Lt Smythe",
            "British",
            "revolver",
            3,
            10.0,
            10.0,
            "rank = \"officer\"\nleader = true"
        ),
        fig(
            "Pte Adams",
            "British",
            "breech-loading-rifle",
            3,
            14.0,
            10.0,
            ""
        ),
        fig(
            "Warrior",
            "Natives",
            "thrown-spear",
            3,
            enemy_at.0,
            enemy_at.1,
            ""
        )
    ));
    let british = id(&s, "Lt Smythe");
    let side = s.figures[british.index()].side;
    s.sides[side].preservation_limit = Some(2);
    let st = s.sides[side].rules.stand_to_mut();
    st.preservation_points = 5;
    st.broken = true;
    at_phase(&mut s, "reactions", "Lt Smythe");
    game(s)
}

/// "All figures in that group must get out of the enemy's line of fire
/// and into a protected position (one where they can't be shot or charged
/// by the enemy, and all are within voice range of the leader). Each turn
/// spent this way allows the force to shed 1d6 preservation points."
#[test]
fn shed_1d6_once_a_turn_and_only_in_a_protected_position() {
    // Behind the kopje, 40 in from the warrior: protected.
    let mut g = broken_side((50.0, 10.0));
    let side = g.state().active_side;
    g.execute(
        Command::StandTo(St::Shed { side }),
        &mut TypedDice::new([2]),
    )
    .expect("a turn in a protected position sheds 1d6");
    assert_eq!(side_st(&g.state().sides[side]).preservation_points, 3);
    let r = refusal(g.execute(
        Command::StandTo(St::Shed { side }),
        &mut TypedDice::new([2]),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed, "{}", r.why);
    advance_to(&mut g, "Lt Smythe", "reactions");
    g.execute(
        Command::StandTo(St::Shed { side }),
        &mut TypedDice::new([1]),
    )
    .expect("the next turn sheds again");
    // In the open, seen by the warrior: not protected.
    let g = broken_side((10.0, 30.0));
    let r = refusal(
        g.check(&Command::StandTo(St::Shed {
            side: g.state().active_side,
        }))
        .map(|()| Vec::new()),
    );
    assert_eq!(r.kind, RefusalKind::Morale, "{}", r.why);
    // Behind the kopje but within his charge: not protected either.
    let g = broken_side((22.0, 10.0));
    let r = refusal(
        g.check(&Command::StandTo(St::Shed {
            side: g.state().active_side,
        }))
        .map(|()| Vec::new()),
    );
    assert!(r.why.contains("charge"), "{}", r.why);
}

// ---- The gun: crew and ammunition ----

fn gun_state(crew_near: usize, ammo: &str) -> Game {
    let mut body = fig(
        "Gunner",
        "British",
        "nordenfelt-gun",
        3,
        10.0,
        10.0,
        &format!("facing_deg = 0.0\n{ammo}"),
    );
    for i in 0..crew_near {
        body.push_str(&fig(
            &format!("Crew {i}"),
            "British",
            "breech-loading-rifle",
            3,
            10.0,
            11.0 + i as f64 * 0.8,
            "",
        ));
    }
    body.push_str(&fig("Target", "Natives", "thrown-spear", 3, 40.0, 10.0, ""));
    let mut s = state_from(&body);
    at_phase(&mut s, "fire", "Gunner");
    game(s)
}

/// "Gun specifications—crew, reload times, ammo capacity—are listed on the
/// Weapon table." A gun starts with its weapon's ammunition and uses a
/// round a shot; its reload time grows by a turn for each man short of its
/// crew (house value: the text gives no short-crew rule).
#[test]
fn the_gun_uses_its_crew_and_its_ammunition() {
    let r = rules();
    let w = r.data.weapon("nordenfelt-gun").unwrap();
    assert_eq!((w.crew, w.ammo), (Some(3), Some(20)));
    let mut g = gun_state(2, "loaded = true");
    let gunner = id(g.state(), "Gunner");
    assert_eq!(st(g.state().figure(gunner).unwrap()).ammo, Some(20));
    assert_eq!(r.gun_crew(g.state(), g.state().figure(gunner).unwrap()), 3);
    g.execute(
        Command::StandTo(St::FireGun { gun: gunner }),
        &mut TypedDice::new([1, 1]),
    )
    .expect("the gun fires");
    assert_eq!(st(g.state().figure(gunner).unwrap()).ammo, Some(19));
    // Full crew: one turn to reload, fire the turn after.
    advance_to(&mut g, "Gunner", "non-combat");
    g.execute(
        Command::StandTo(St::Load { figure: gunner }),
        &mut TypedDice::default(),
    )
    .unwrap();
    assert!(g.state().figure(gunner).unwrap().loaded);
    // A lone gunner: two men short, three turns.
    let g = gun_state(0, "loaded = false");
    let gunner = id(g.state(), "Gunner");
    let f = g.state().figure(gunner).unwrap();
    assert_eq!(r.gun_crew(g.state(), f), 1);
    assert_eq!(r.gun_load_turns(g.state(), f, w), 3);
    // Out of ammunition: refused.
    let g = gun_state(2, "loaded = true\nammo = 0");
    let r = refusal(
        g.check(&Command::StandTo(St::FireGun {
            gun: id(g.state(), "Gunner"),
        }))
        .map(|()| Vec::new()),
    );
    assert_eq!(r.kind, RefusalKind::NotLoaded);
    assert!(r.why.contains("ammunition"), "{}", r.why);
}

// ---- Heroes, fanatics, mounted firers ----

fn shot_at(exp: u8, side: &str, faces: [u32; 3]) -> (Vec<Event>, spotter::game::FigureId) {
    let (firer_side, firer_weapon) = if side == "British" {
        ("Natives", "musket")
    } else {
        ("British", "lever-action-rifle")
    };
    let mut s = state_from(&format!(
        "{}{}",
        fig(
            "Firer",
            firer_side,
            firer_weapon,
            3,
            10.0,
            10.0,
            "loaded = true"
        ),
        fig("Man", side, "revolver", exp, 14.0, 10.0, "")
    ));
    at_phase(&mut s, "fire", "Firer");
    let man = id(&s, "Man");
    let ev = rules()
        .resolve(
            &s,
            &Command::StandTo(St::Fire {
                shooter: id(&s, "Firer"),
                target: man,
                mode: FireMode::Aimed,
                rapid: false,
                aim_use: AimUse::Best,
                at_mount: false,
            }),
            &mut TypedDice::new(faces),
        )
        .unwrap();
    (ev, man)
}

fn wound_of(ev: &[Event], who: spotter::game::FigureId) -> Option<Wound> {
    ev.iter().rev().find_map(|e| match e {
        Event::Wounded { figure, wound, .. } if *figure == who => Some(*wound),
        _ => None,
    })
}

/// "Light wounds have no effect on fanatics or heroes, and serious wounds
/// are treated as light wounds."
#[test]
fn heroes_and_fanatics_ignore_light_wounds_and_take_serious_ones_as_light() {
    for (side, who) in [("British", "hero"), ("Natives", "fanatic")] {
        // White 4+4 would kill anyone (doubles): it still kills.
        let (ev, man) = shot_at(6, side, [4, 4, 6]);
        assert_eq!(wound_of(&ev, man), Some(Wound::Killed), "{who}");
        // 4+6 = 10, even: a light wound, no effect.
        let (ev, man) = shot_at(6, side, [4, 6, 6]);
        assert_eq!(wound_of(&ev, man), None, "{who} ignores a light wound");
        assert!(
            ev.iter().any(
                |e| matches!(e, Event::Note { text } if text.contains("ignores a light wound"))
            )
        );
        // 5+6 = 11, odd: serious, treated as light.
        let (ev, man) = shot_at(6, side, [5, 6, 6]);
        assert_eq!(wound_of(&ev, man), Some(Wound::Light), "{who}");
        // A trained man takes the serious wound.
        let (ev, man) = shot_at(3, side, [5, 6, 6]);
        assert_eq!(wound_of(&ev, man), Some(Wound::Serious));
    }
}

/// "Note that hit numbers are different for mounted firers than for
/// dismounted firers."
#[test]
fn mounted_firers_use_the_mounted_hit_numbers() {
    let r = rules();
    for (base, expect) in [("foot", 8), ("mounted", 10)] {
        let mut s = state_from(&format!(
            "{}{}",
            fig(
                "Dragoon",
                "British",
                "breech-loading-carbine",
                3,
                10.0,
                10.0,
                &format!("base = \"{base}\"\nloaded = true")
            ),
            fig("Warrior", "Natives", "thrown-spear", 3, 10.0, 28.0, "")
        ));
        at_phase(&mut s, "fire", "Dragoon");
        let w = r.data.weapon("breech-loading-carbine").unwrap();
        let plan = r
            .fire_plan(
                &s,
                id(&s, "Dragoon"),
                id(&s, "Warrior"),
                FireMode::Aimed,
                AimUse::Best,
                false,
            )
            .unwrap();
        assert_eq!(plan.band_name, "medium");
        assert_eq!(plan.situation.needed, expect, "{base}");
        let table = if base == "foot" {
            w.hit_dismounted
        } else {
            w.hit_mounted
        };
        assert_eq!(plan.situation.needed, table[1]);
    }
}

// ---- Dismounting ----

fn riders(n: usize) -> Game {
    const AROUND: [(f64, f64); 5] = [
        (18.7, 20.0),
        (21.3, 20.0),
        (20.0, 18.3),
        (20.0, 21.7),
        (18.7, 18.5),
    ];
    let mut body = fig(
        "Holder",
        "British",
        "breech-loading-carbine",
        3,
        20.0,
        20.0,
        "",
    );
    for (i, (x, y)) in AROUND.iter().take(n).enumerate() {
        body.push_str(&fig(
            &format!("Rider {i}"),
            "British",
            "breech-loading-carbine",
            3,
            *x,
            *y,
            "base = \"mounted\"",
        ));
    }
    body.push_str(&fig(
        "Warrior",
        "Natives",
        "thrown-spear",
        3,
        90.0,
        90.0,
        "",
    ));
    let mut s = state_from(&body);
    at_phase(&mut s, "non-combat", "Holder");
    game(s)
}

fn dismount(name: &str, by: HoldBy, holder: Option<&str>) -> Command {
    Command::StandTo(Action::Dismount(DismountParams {
        figure: name.into(),
        by,
        holder: holder.map(str::to_owned),
    }))
}

/// "Dismounted riders must either allocate one horseholder for every four
/// mounts or spend one turn tying the reins to a tree, or spend four turns
/// driving a peg and tying the reins to it."
#[test]
fn dismounting_needs_a_horseholder_per_four_mounts_a_tree_or_a_peg() {
    let mut g = riders(5);
    for i in 0..4 {
        g.execute(
            dismount(&format!("Rider {i}"), HoldBy::Horseholder, Some("Holder")),
            &mut TypedDice::default(),
        )
        .unwrap_or_else(|e| panic!("rider {i}: {e}"));
        assert!(
            !g.state()
                .figure_named(&format!("Rider {i}"))
                .unwrap()
                .mounted()
        );
    }
    let r = refusal(g.execute(
        dismount("Rider 4", HoldBy::Horseholder, Some("Holder")),
        &mut TypedDice::default(),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed);
    assert!(r.why.contains("every 4 mounts"), "{}", r.why);
    // A tree takes his turn.
    g.execute(
        dismount("Rider 4", HoldBy::Tree, None),
        &mut TypedDice::default(),
    )
    .unwrap();
    let rider = id(g.state(), "Rider 4");
    assert_eq!(
        st(g.state().figure(rider).unwrap()).idle_until_turn,
        Some(1)
    );
    // A peg: four turns, and he stays by it.
    let mut g = riders(1);
    g.execute(
        dismount("Rider 0", HoldBy::Peg, None),
        &mut TypedDice::default(),
    )
    .unwrap();
    let rider = id(g.state(), "Rider 0");
    let walk = Command::StandTo(St::Move {
        figure: rider,
        path_in: vec![Point2::new(18.0, 21.0)],
        facing_deg: 0.0,
        pace: Pace::Walk,
        mount_level: None,
    });
    // A turn he does not drive the peg, he still may not leave it.
    advance_to(&mut g, "Rider 0", "move");
    advance_to(&mut g, "Rider 0", "move");
    assert_eq!(game_refusal_kind(g.check(&walk)), RefusalKind::Movement);
    for left in (0..3).rev() {
        advance_to(&mut g, "Rider 0", "non-combat");
        let ev = g
            .execute(
                Command::StandTo(Action::DrivePeg(DrivePegParams {
                    figure: "Rider 0".into(),
                })),
                &mut TypedDice::default(),
            )
            .unwrap();
        assert!(ev.iter().any(|e| matches!(
            e,
            Event::StandTo(StandToEvent::PegDriven { turns_left, .. }) if *turns_left == left
        )));
    }
    advance_to(&mut g, "Rider 0", "non-combat");
    advance_to(&mut g, "Rider 0", "move");
    assert!(g.check(&walk).is_ok(), "the mount is tied: he may go");
}

// ---- The novice leader, the fanatic ----

/// "Three things cause a reaction: a close miss, the wounding of a
/// comrade, and the first attack (novice leaders only). When a novice
/// leader reacts to the first attack on his force, roll two dice; on a
/// roll of 9 or more, he immediately becomes trained (experience no. 3)."
#[test]
fn the_first_attack_on_a_novice_leaders_force_calls_for_his_roll() {
    let mut s = state_from(&format!(
        "{}{}{}",
        fig(
            "Lt Green",
            "British",
            "revolver",
            1,
            10.0,
            10.0,
            "rank = \"officer\"\nleader = true"
        ),
        fig(
            "Pte Adams",
            "British",
            "breech-loading-rifle",
            3,
            12.0,
            10.0,
            ""
        ),
        fig(
            "Warrior",
            "Natives",
            "lever-action-rifle",
            3,
            12.0,
            30.0,
            ""
        )
    ));
    at_phase(&mut s, "fire", "Warrior");
    let mut g = game(s);
    let ev = g
        .execute(
            fire(&g, "Warrior", "Pte Adams", FireMode::Aimed),
            &mut TypedDice::new(MISS),
        )
        .unwrap();
    assert!(ev.iter().any(
        |e| matches!(e, Event::Note { text } if text.contains("first attack on Lt Green's force"))
    ));
    let lt = id(g.state(), "Lt Green");
    let odds = rules()
        .odds(g.state(), &Command::StandTo(St::FirstAttack { leader: lt }))
        .unwrap();
    assert!((odds[0].p - 10.0 / 36.0).abs() < 1e-12, "9+ on 2d6");
    let ev = g
        .execute(
            Command::StandTo(St::FirstAttack { leader: lt }),
            &mut TypedDice::new([4, 5]),
        )
        .unwrap();
    assert!(ev.contains(&Event::StandTo(StandToEvent::Experience {
        figure: lt,
        number: 3
    })));
    assert_eq!(
        game_refusal_kind(g.check(&Command::StandTo(St::FirstAttack { leader: lt }))),
        RefusalKind::AlreadyActed
    );
}

/// "A fanatic will always charge the closest enemy he sees. Once he has
/// started charging, the fanatic will not react to any other occurrence."
/// His charge is typed state (`charging`), read from the scenario too.
#[test]
fn the_fanatics_forced_charge_is_typed_state() {
    let s = state_from(&format!(
        "{}{}",
        fig(
            "Zealot",
            "Natives",
            "thrown-spear",
            6,
            10.0,
            10.0,
            "[figure.status]\ncharging = \"Near\""
        ),
        fig("Near", "British", "breech-loading-rifle", 3, 20.0, 10.0, "")
    ));
    let z = s.figure_named("Zealot").unwrap();
    assert_eq!(
        z.rules.stand_to().and_then(|st| st.charging.as_deref()),
        Some("Near")
    );
    assert!(rules().charging_fanatic(&s, z));
    let mut s = s;
    at_phase(&mut s, "non-combat", "Zealot");
    let prone = Command::StandTo(St::Prone {
        figure: id(&s, "Zealot"),
        prone: true,
    });
    assert_eq!(
        refusal_kind(rules().check(&s, &prone)),
        RefusalKind::NoOrder
    );
}

/// A status key Stand To! does not keep is a scenario error naming it.
#[test]
fn unknown_stand_to_status_is_a_scenario_error() {
    let text = r#"name = "t"
rule_set = "stand-to"
[table]
width_in = 48.0
depth_in = 48.0
[[side]]
name = "British"
kind = "european"
[[figure]]
name = "Tommy"
side = "British"
rank = "private"
weapon = "revolver"
melee_weapon = "sword-sabre"
experience = 3
base = "foot"
facing_deg = 0.0
x_in = 1.0
y_in = 1.0
[figure.status]
armour = "3"
"#;
    let err = spotter::game::Scenario::from_source(
        &spotter::spec::SourceFile::from_text("t.toml", text),
        &registry(),
    )
    .expect_err("armour is not a Stand To! status");
    let msg = err.to_string();
    assert!(msg.contains("armour") && msg.contains("status"), "{msg}");
}

/// "Figures which are being charged, are in melee, or are aiming ignore
/// this reaction."
#[test]
fn a_friend_being_charged_ignores_the_rescue_reaction() {
    let mut s = state_from(&format!(
        "{}{}{}",
        fig(
            "Pte Hurt",
            "British",
            "breech-loading-rifle",
            3,
            10.0,
            10.0,
            ""
        ),
        fig(
            "Pte Near",
            "British",
            "breech-loading-rifle",
            3,
            12.0,
            10.0,
            ""
        ),
        fig(
            "Warrior",
            "Natives",
            "thrown-spear",
            3,
            12.0,
            18.0,
            "pace = \"charge\""
        )
    ));
    let hurt = id(&s, "Pte Hurt");
    s.figures[hurt.index()].wound = Some(Wound::Light);
    at_phase(&mut s, "reactions", "Pte Hurt");
    let ev = rules()
        .resolve(
            &s,
            &Command::StandTo(St::Rescue { wounded: hurt }),
            &mut TypedDice::default(),
        )
        .unwrap();
    assert!(ev.iter().any(
        |e| matches!(e, Event::Note { text } if text.contains("being charged, in melee or aiming"))
    ));
    assert_eq!(
        rules()
            .odds(&s, &Command::StandTo(St::Rescue { wounded: hurt }))
            .unwrap(),
        Vec::new(),
        "no leader: nothing is rolled"
    );
}

// ---- The scripted game ----

/// Two turns at the zareba through the script runner (`spotter play
/// --script scenarios/scripts/st-zareba.toml`): every step is legal, the
/// fanatic's charge ends in his immediate attack, and the log replays to
/// the same state.
#[test]
fn scripted_game_plays_and_replays_from_its_log() {
    let registry = registry();
    let script = spotter::game::script::Script::load(
        std::path::Path::new("scenarios/scripts/st-zareba.toml"),
        &registry,
    )
    .expect("script loads");
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("st.jsonl");
    let game = script
        .play(&registry, Some(&log), |_, _, _| {})
        .expect("script plays");
    let events: Vec<&Event> = game.history().iter().flat_map(|p| &p.events).collect();
    let orders = events
        .iter()
        .filter(|e| matches!(e, Event::StandTo(StandToEvent::OrderIssued { turn: 1, .. })))
        .count();
    assert_eq!(orders, 3, "two British leaders and the Emir, all in turn 1");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::FanaticCharging { .. }))),
        "the fanatic charges"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::MeleeResolved { .. }))),
        "his immediate attack"
    );
    assert!(game.state().turn >= 3);
    let replayed = Game::resume(&log, &registry).expect("log resumes");
    assert_eq!(replayed.state(), game.state());
}

/// The zareba's location aim through the script runner (`spotter play
/// --script scenarios/scripts/st-zareba-covered.toml`): Sgt Bell aims at the
/// scrub's edge, the fanatic appears there in his charge and Bell fires at
/// once with no aiming bonus; the log replays to the same state.
#[test]
fn scripted_location_aim_plays_and_replays_from_its_log() {
    let registry = registry();
    let script = spotter::game::script::Script::load(
        std::path::Path::new("scenarios/scripts/st-zareba-covered.toml"),
        &registry,
    )
    .expect("script loads");
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("st.jsonl");
    let game = script
        .play(&registry, Some(&log), |_, _, _| {})
        .expect("script plays");
    let events: Vec<&Event> = game.history().iter().flat_map(|p| &p.events).collect();
    let (bell, fanatic) = (id(game.state(), "Sgt Bell"), id(game.state(), "Dervish 1"));
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::StandTo(StandToEvent::AppearedInCoveredArea { figure, target, .. })
                if *figure == bell && *target == fanatic
        )),
        "the fanatic appears where Sgt Bell aims"
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::StandTo(StandToEvent::FireResolved { shooter, aim_bonus: None, .. })
                if *shooter == bell
        )),
        "Sgt Bell fires at once, with no aiming bonus"
    );
    let replayed = Game::resume(&log, &registry).expect("log resumes");
    assert_eq!(replayed.state(), game.state());
}

/// Note 2: "If the shot was on target but missed because of the saving
/// roll, it hits another figure instead. ... It must be a figure that is
/// engaged in melee with the original target."
#[test]
fn note_2_a_saved_shot_hits_the_man_in_melee_with_the_target() {
    let mut s = state_from(&format!(
        "{}{}{}",
        fig("Tommy", "British", "lever-action-rifle", 3, 10.0, 10.0, ""),
        fig(
            "Warrior",
            "Natives",
            "thrown-spear",
            3,
            20.0,
            10.0,
            "pace = \"walk\""
        ),
        fig(
            "Pte Hurt",
            "British",
            "breech-loading-rifle",
            3,
            21.2,
            10.0,
            ""
        )
    ));
    at_phase(&mut s, "fire", "Tommy");
    let hurt = id(&s, "Pte Hurt");
    // White 5 + 3 = 8 is on target; the walking warrior saves on the coloured 1.
    let ev = rules()
        .resolve(
            &s,
            &Command::StandTo(St::Fire {
                shooter: id(&s, "Tommy"),
                target: id(&s, "Warrior"),
                mode: FireMode::Aimed,
                rapid: false,
                aim_use: AimUse::Best,
                at_mount: false,
            }),
            &mut TypedDice::new([5, 3, 1]),
        )
        .unwrap();
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::StandTo(StandToEvent::FireResolved {
            on_target: true,
            saved: true,
            ..
        })
    )));
    assert_eq!(wound_of(&ev, hurt), Some(Wound::Light), "8 is even: light");
}

// ---- Aiming at a location: the covered area ----

/// A Stand To! command by its name and JSON parameters (as scripts write
/// them).
fn named(name: &str, params: serde_json::Value) -> Command {
    rules()
        .parse_action(name, &params)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn aim_at(g: &Game, who: &str, at: (f64, f64)) -> Command {
    named(
        "aim-at-location",
        serde_json::json!({"figure": id(g.state(), who).0, "center_in": [at.0, at.1]}),
    )
}

fn fire_at_location(g: &Game, who: &str, target: &str) -> Command {
    named(
        "fire-at-location",
        serde_json::json!({"shooter": id(g.state(), who).0, "target": id(g.state(), target).0}),
    )
}

fn doubletime(g: &Game, who: &str, to: (f64, f64)) -> Command {
    Command::StandTo(St::Move {
        figure: id(g.state(), who),
        path_in: vec![Point2::new(to.0, to.1)],
        facing_deg: 180.0,
        pace: Pace::Doubletime,
        mount_level: None,
    })
}

/// Tommy, loaded, watches the ground about (20, 22); two warriors stand
/// outside it.
fn covering_state() -> Game {
    let mut s = state_from(&format!(
        "{}{}{}",
        tommy(3, 20.0, 5.0, "loaded = true\nfacing_deg = 90.0"),
        fig("Warrior", "Natives", "thrown-spear", 3, 27.0, 22.0, ""),
        fig("Runner", "Natives", "thrown-spear", 3, 24.0, 20.5, "")
    ));
    at_phase(&mut s, "fire", "Tommy");
    game(s)
}

fn appeared(ev: &[Event], watcher: spotter::game::FigureId, who: spotter::game::FigureId) -> bool {
    ev.iter().any(|e| {
        matches!(e, Event::StandTo(StandToEvent::AppearedInCoveredArea { figure, target, .. })
            if *figure == watcher && *target == who)
    })
}

/// "A soldier can also aim at a location. If anything appears there, he can
/// immediately fire at it. He gets no aiming bonus for this shot, no matter
/// how long he waited for the target to appear."
///
/// Before the fix there was no such action: `parse_action` failed with
/// "aim-at-location: the rule set stand-to has no aim-at-location action".
#[test]
fn aiming_at_a_location_fires_at_whatever_appears_with_no_aiming_bonus() {
    let mut g = covering_state();
    let (tommy, warrior, runner) = (
        id(g.state(), "Tommy"),
        id(g.state(), "Warrior"),
        id(g.state(), "Runner"),
    );
    g.execute(aim_at(&g, "Tommy", (20.0, 22.0)), &mut TypedDice::default())
        .expect("he aims at the place");
    // Aiming takes the turn: no shot this turn.
    let r = refusal(g.execute(
        fire(&g, "Tommy", "Warrior", FireMode::Aimed),
        &mut TypedDice::new(MISS),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed, "{}", r.why);
    // "no matter how long he waited": a whole round passes.
    advance_to(&mut g, "Warrior", "move");
    advance_to(&mut g, "Warrior", "move");
    // Nothing has appeared yet: nothing to fire at.
    let r = refusal(g.execute(
        fire_at_location(&g, "Tommy", "Warrior"),
        &mut TypedDice::new(MISS),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed, "{}", r.why);
    // The warrior runs into the area; the runner runs through it and out.
    let ev = g
        .execute(
            doubletime(&g, "Warrior", (21.0, 22.0)),
            &mut TypedDice::default(),
        )
        .unwrap();
    assert!(appeared(&ev, tommy, warrior), "{ev:?}");
    let ev = g
        .execute(
            doubletime(&g, "Runner", (16.5, 20.5)),
            &mut TypedDice::default(),
        )
        .unwrap();
    assert!(appeared(&ev, tommy, runner), "{ev:?}");
    // He fires at once, in the Natives' move phase, with no aiming bonus:
    // white dice one short of the number needed miss, though a +1 would hit.
    let cmd = fire_at_location(&g, "Tommy", "Warrior");
    let plan = rules()
        .fire_plan(
            g.state(),
            tommy,
            warrior,
            FireMode::Aimed,
            AimUse::Best,
            false,
        )
        .unwrap();
    let short = i64::from(plan.situation.needed) - 1 - i64::from(plan.situation.ability);
    let (a, b) = (short.min(6), short - short.min(6));
    assert!((1..=6).contains(&b), "dice for {short}");
    let ev = g
        .execute(
            cmd,
            &mut TypedDice::new([u32::try_from(a).unwrap(), u32::try_from(b).unwrap(), 6]),
        )
        .expect("he fires at once at what appears");
    let resolved = ev
        .iter()
        .find_map(|e| match e {
            Event::StandTo(StandToEvent::FireResolved {
                on_target,
                aim_bonus,
                ..
            }) => Some((*on_target, *aim_bonus)),
            _ => None,
        })
        .expect("the shot");
    assert_eq!(resolved, (false, None), "no aiming bonus for this shot");
    assert!(!g.state().figure(tommy).unwrap().loaded);
    // The shot spent his aim: the runner goes by.
    let r = refusal(g.execute(
        fire_at_location(&g, "Tommy", "Runner"),
        &mut TypedDice::new(MISS),
    ));
    assert_eq!(r.kind, RefusalKind::CannotDo, "{}", r.why);
}

/// "He can immediately fire at it": once the phase in which the enemy
/// appeared is over, the moment has passed. And the aim has the limits of
/// aiming: a place he sees, in range, with his weapon loaded, not in the
/// turn he loads.
#[test]
fn a_location_aim_fires_at_once_or_not_at_all_and_has_aimings_limits() {
    let mut g = covering_state();
    let tommy = id(g.state(), "Tommy");
    let r = refusal(g.execute(aim_at(&g, "Tommy", (20.0, 90.0)), &mut TypedDice::default()));
    assert_eq!(r.kind, RefusalKind::OutOfRange, "{}", r.why);
    g.execute(aim_at(&g, "Tommy", (20.0, 22.0)), &mut TypedDice::default())
        .unwrap();
    advance_to(&mut g, "Runner", "move");
    let ev = g
        .execute(
            doubletime(&g, "Runner", (19.0, 21.0)),
            &mut TypedDice::default(),
        )
        .unwrap();
    assert!(appeared(&ev, tommy, id(g.state(), "Runner")));
    g.execute(Command::EndPhase, &mut TypedDice::default())
        .unwrap();
    let r = refusal(g.execute(
        fire_at_location(&g, "Tommy", "Runner"),
        &mut TypedDice::new(MISS),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed, "{}", r.why);
    assert!(r.why.contains("at once"), "{}", r.why);
    // An unloaded rifle cannot be ready to fire at once.
    let mut g = rifleman_and_target("breech-loading-rifle");
    advance_to(&mut g, "Pte Carter", "fire");
    let r = refusal(g.execute(
        aim_at(&g, "Pte Carter", (30.0, 10.0)),
        &mut TypedDice::default(),
    ));
    assert_eq!(r.kind, RefusalKind::NotLoaded, "{}", r.why);
    // Loading takes the turn: he aims at the place the turn after.
    advance_to(&mut g, "Pte Carter", "non-combat");
    let carter = id(g.state(), "Pte Carter");
    g.execute(
        Command::StandTo(St::Load { figure: carter }),
        &mut TypedDice::default(),
    )
    .unwrap();
    advance_to(&mut g, "Pte Carter", "fire");
    let r = refusal(g.execute(
        aim_at(&g, "Pte Carter", (30.0, 10.0)),
        &mut TypedDice::default(),
    ));
    assert_eq!(r.kind, RefusalKind::AlreadyActed, "{}", r.why);
    advance_to(&mut g, "Pte Carter", "fire");
    g.execute(
        aim_at(&g, "Pte Carter", (30.0, 10.0)),
        &mut TypedDice::default(),
    )
    .expect("loaded the turn before");
}

/// "1. An enemy already aimed at, a covered area, or a target that the
/// figure has been specifically ordered to shoot." An enemy in the area he
/// covers comes before the nearest danger.
///
/// Before the fix: no "aim-at-location" action (as above), and
/// `target_priority` knew no covered area.
#[test]
fn a_covered_area_comes_first_in_target_priority() {
    let mut g = priority_state(None);
    let (tommy, near) = (id(g.state(), "Tommy"), id(g.state(), "Near"));
    // The charger is the danger; Near stands in the ground Tommy covers.
    g.execute(aim_at(&g, "Tommy", (20.0, 10.0)), &mut TypedDice::default())
        .unwrap();
    assert_eq!(rules().target_priority(g.state(), tommy), vec![near]);
    // The charger charges on; Tommy's next turn, Near still comes first.
    advance_to(&mut g, "Charger", "move");
    g.execute(
        Command::StandTo(St::Move {
            figure: id(g.state(), "Charger"),
            path_in: vec![Point2::new(10.0, 18.0)],
            facing_deg: 270.0,
            pace: Pace::Charge,
            mount_level: None,
        }),
        &mut TypedDice::default(),
    )
    .expect("the charger charges");
    advance_to(&mut g, "Tommy", "fire");
    assert_eq!(rules().target_priority(g.state(), tommy), vec![near]);
    assert!(g.check(&fire(&g, "Tommy", "Near", FireMode::Aimed)).is_ok());
    let r = refusal(
        g.check(&fire(&g, "Tommy", "Charger", FireMode::Aimed))
            .map(|()| Vec::new()),
    );
    assert_eq!(r.kind, RefusalKind::NoOrder, "{}", r.why);
}

// ---- Actions done in a single turn / in no time at all ----

/// The command for a timed action of the data's lists, for `who` with
/// `target` in view.
fn timed(g: &Game, name: &str, who: &str, target: &str) -> Command {
    let (me, at) = (id(g.state(), who).0, id(g.state(), target));
    let place = g.state().figure(at).unwrap().placement.center_in_table;
    let params = match name {
        "load" => serde_json::json!({"figure": me}),
        "aim" => serde_json::json!({"figure": me, "target": at.0}),
        "aim-at-location" => serde_json::json!({"figure": me, "center_in": [place.x, place.y]}),
        "prone" => serde_json::json!({"figure": me, "prone": true}),
        other => panic!("the timed list names `{other}`: give it a command here and a test"),
    };
    named(name, params)
}

/// "All of the following actions can be accomplished in a single turn."
/// "The following actions take no time at all. Where applicable, they can
/// be combined with any other actions and with movement up to
/// doubletiming." Both lists are lost from our copy: the data's
/// `turn.single_turn` and `turn.no_time` are marked house lists of what the
/// engine times. Each action of the first takes the man's turn (none of
/// them twice, no two in one turn), again the turn after; each of the
/// second goes with any of them and with a doubletime move.
///
/// Before the fix: no such lists (and loading then aiming in one turn was
/// accepted).
#[test]
fn the_actions_of_a_single_turn_and_of_no_time_are_marked_house_lists() {
    let r = rules();
    let turn = &r.data.turn;
    assert!(turn.house.contains_key("single_turn"), "marked house list");
    assert!(turn.house.contains_key("no_time"), "marked house list");
    assert!(!turn.single_turn.is_empty() && !turn.no_time.is_empty());
    let start = || {
        let mut s = state_from(&format!(
            "{}{}",
            fig("Lt Jones", "British", "revolver", 3, 10.0, 10.0, ""),
            fig("Warrior", "Natives", "thrown-spear", 3, 20.0, 10.0, "")
        ));
        at_phase(&mut s, "fire", "Lt Jones");
        game(s)
    };
    for a in &turn.single_turn {
        for b in &turn.single_turn {
            let mut g = start();
            g.execute(
                timed(&g, a, "Lt Jones", "Warrior"),
                &mut TypedDice::default(),
            )
            .unwrap_or_else(|e| panic!("{a}: {e}"));
            let second = timed(&g, b, "Lt Jones", "Warrior");
            let kind = game_refusal_kind(g.check(&second));
            assert_eq!(kind, RefusalKind::AlreadyActed, "{a} then {b} in one turn");
            advance_to(&mut g, "Lt Jones", "fire");
            if let Err(e) = g.check(&second) {
                assert!(
                    !e.to_string().contains("spent this turn"),
                    "{a}, next turn {b}: {e}"
                );
            }
        }
    }
    for quick in &turn.no_time {
        for a in &turn.single_turn {
            let mut g = start();
            g.execute(
                timed(&g, quick, "Lt Jones", "Warrior"),
                &mut TypedDice::default(),
            )
            .unwrap_or_else(|e| panic!("{quick}: {e}"));
            g.execute(
                timed(&g, a, "Lt Jones", "Warrior"),
                &mut TypedDice::default(),
            )
            .unwrap_or_else(|e| panic!("{quick} then {a}: {e}"));
            advance_to(&mut g, "Lt Jones", "move");
            g.execute(
                Command::StandTo(St::Move {
                    figure: id(g.state(), "Lt Jones"),
                    path_in: vec![Point2::new(10.0, 5.0)],
                    facing_deg: 270.0,
                    pace: Pace::Doubletime,
                    mount_level: None,
                }),
                &mut TypedDice::default(),
            )
            .unwrap_or_else(|e| panic!("{quick}, {a}, then a doubletime move: {e}"));
        }
    }
    // The menu (the app, `spotter actions stand-to`) says the same.
    for spec in r.actions() {
        if turn.single_turn.iter().any(|n| n == spec.name) {
            assert!(spec.doc.contains("takes his turn"), "{}", spec.doc);
        }
        if turn.no_time.iter().any(|n| n == spec.name) {
            assert!(spec.doc.contains("takes no time"), "{}", spec.doc);
        }
    }
}

// ---- The rescue: dragging the wounded ----

/// "A rescued figure can be dragged at the Evading movement rate. Figures
/// which are being charged, are in melee, or are aiming ignore this
/// reaction." Spotter tells the rescuer's player the rate (the drag is his
/// move); a friend who aims at a location is aiming too.
#[test]
fn a_rescued_figure_is_dragged_at_the_evading_rate() {
    let mut s = state_from(&format!(
        "{}{}",
        fig(
            "Pte Hurt",
            "British",
            "breech-loading-rifle",
            3,
            10.0,
            10.0,
            ""
        ),
        fig(
            "Pte Near",
            "British",
            "breech-loading-rifle",
            3,
            12.0,
            10.0,
            ""
        )
    ));
    let (hurt, near) = (id(&s, "Pte Hurt"), id(&s, "Pte Near"));
    s.figures[hurt.index()].wound = Some(Wound::Light);
    at_phase(&mut s, "reactions", "Pte Hurt");
    let rescue = Command::StandTo(St::Rescue { wounded: hurt });
    // 6 + 6: the nearest friend must rescue him.
    let ev = rules()
        .resolve(&s, &rescue, &mut TypedDice::new([6, 6]))
        .unwrap();
    let rate = rules().data.movement.european.evade;
    let want = format!("he drags him at the evading rate ({rate} in)");
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Note { text } if text.contains(&want))),
        "{ev:?}"
    );
    // Aiming at a location, he ignores the reaction.
    s.figures[near.index()].rules.stand_to_mut().covering =
        Some(spotter::rules::stand_to::status::CoveredArea {
            center_in: Point2::new(30.0, 10.0),
            turn: 1,
            appeared: Vec::new(),
        });
    let ev = rules()
        .resolve(&s, &rescue, &mut TypedDice::new([6, 6]))
        .unwrap();
    assert!(ev.iter().any(
        |e| matches!(e, Event::Note { text } if text.contains("being charged, in melee or aiming"))
    ));
}

// ---- The personal figure ----

/// "Each player selects one of his figures ... to be his personal figure.
/// This figure always does whatever the player wants, regardless of orders
/// (though it is still subject to reactions, q.v.)." Spotter never refuses
/// a move or a shot for going against a standing order, so the personal
/// figure is the player's; a reaction (a close miss) still stops him.
#[test]
fn the_personal_figure_does_what_the_player_wants_but_still_reacts() {
    let mut s = state_from(&format!(
        "{}{}",
        fig(
            "Lt Jones",
            "British",
            "revolver",
            3,
            20.0,
            10.0,
            "leader = true\nrank = \"officer\""
        ),
        fig(
            "Warrior",
            "Natives",
            "lever-action-rifle",
            3,
            10.0,
            10.0,
            ""
        )
    ));
    let jones = id(&s, "Lt Jones");
    s.figures[jones.index()].rules.stand_to_mut().order = Some("hold the wall".into());
    at_phase(&mut s, "move", "Lt Jones");
    let mut g = game(s);
    let walk = || {
        Command::StandTo(St::Move {
            figure: jones,
            path_in: vec![Point2::new(21.0, 10.0)],
            facing_deg: 0.0,
            pace: Pace::Walk,
            mount_level: None,
        })
    };
    g.execute(walk(), &mut TypedDice::default())
        .expect("regardless of orders");
    g.execute(
        Command::StandTo(St::Prone {
            figure: jones,
            prone: true,
        }),
        &mut TypedDice::default(),
    )
    .unwrap();
    advance_to(&mut g, "Warrior", "fire");
    // On target (5 + 3) but saved (1): a close miss on a prone man.
    let ev = g
        .execute(
            fire(&g, "Warrior", "Lt Jones", FireMode::Aimed),
            &mut TypedDice::new([5, 3, 1]),
        )
        .unwrap();
    assert!(
        ev.iter().any(
            |e| matches!(e, Event::StandTo(StandToEvent::Idle { figure, .. }) if *figure == jones)
        ),
        "{ev:?}"
    );
    advance_to(&mut g, "Lt Jones", "move");
    let kind = game_refusal_kind(g.execute(walk(), &mut TypedDice::default()));
    assert_eq!(
        kind,
        RefusalKind::OutOfTheFight,
        "still subject to reactions"
    );
}

/// The menu's "(takes his turn)" and "(takes no time at all)" are read
/// from the data's `[turn] single_turn` and `no_time` lists (house lists),
/// not written into the menu: a player who edits the lists sees his own
/// timing in the menu.
#[test]
fn the_menus_timing_words_come_from_the_data_lists() {
    use spotter::rules::stand_to::data::BUILTIN_TOML;
    use spotter::rules::stand_to::{StandTo, StandToRules};
    use spotter::spec::SourceFile;
    let text = BUILTIN_TOML
        .replace(
            r#"single_turn = ["load", "aim", "aim-at-location"]"#,
            r#"single_turn = ["load", "aim"]"#,
        )
        .replace(
            r#"no_time = ["prone"]"#,
            r#"no_time = ["prone", "aim-at-location"]"#,
        );
    assert_ne!(text, BUILTIN_TOML, "the edit applies");
    let edited = StandToRules {
        data: StandTo::from_source(&SourceFile::from_text("edited.toml", text))
            .expect("edited data"),
    };
    let doc = |r: &StandToRules, name: &str| {
        r.actions()
            .into_iter()
            .find(|a| a.name == name)
            .map(|a| a.doc.to_string())
            .unwrap_or_else(|| panic!("no {name} in the menu"))
    };
    let builtin = rules();
    assert!(doc(&builtin, "aim-at-location").ends_with("(takes his turn)"));
    let covered = doc(&edited, "aim-at-location");
    assert!(covered.ends_with("(takes no time at all)"), "{covered}");
    assert!(!covered.contains("takes his turn"), "{covered}");
    assert!(doc(&edited, "load").ends_with("(takes his turn)"));
    assert!(doc(&edited, "prone").ends_with("(takes no time at all)"));
    // An action in neither list says neither.
    let melee = doc(&edited, "melee");
    assert!(!melee.contains("takes"), "{melee}");
}
