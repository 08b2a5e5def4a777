//! Stand To!'s orders vocabulary, the fanatic's forced charge and the
//! referee's pre-game options, as the seed text states them.

use crate::common::*;
use nalgebra::Point2;
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, Game, GameState, Pace, Scenario};
use spotter::rules::RuleSet;
use spotter::rules::dice::TypedDice;
use spotter::rules::stand_to::action::{Action as St, OrderVia};
use spotter::rules::stand_to::event::Event as StandToEvent;
use spotter::spec::SourceFile;

fn run(
    state: &GameState,
    cmd: Command,
    faces: &[u32],
) -> Result<Vec<Event>, spotter::rules::RuleError> {
    rules().resolve(state, &cmd, &mut TypedDice::new(faces.iter().copied()))
}

// ---- Orders: shouts are free text, signals and calls a closed set ----

fn order_state() -> GameState {
    let mut s = state_from(&format!(
        "{}{}{}{}{}{}",
        sgt(10.0, 10.0),
        fig("Pte", "British", "breech-loading-rifle", 3, 40.0, 10.0, ""),
        bugler(),
        fig(
            "Scout",
            "British",
            "breech-loading-rifle",
            3,
            60.0,
            10.0,
            "rank = \"scout\""
        ),
        fig(
            "Induna",
            "Natives",
            "thrown-spear",
            3,
            10.0,
            100.0,
            "rank = \"chief\""
        ),
        fig(
            "Horn",
            "Natives",
            "thrown-spear",
            3,
            11.0,
            101.0,
            "rank = \"musician\""
        ),
    ));
    at_phase(&mut s, "non-combat", "Sgt");
    s
}

fn order(
    s: &GameState,
    giver: &str,
    to: &str,
    text: &str,
    via: OrderVia,
) -> Result<String, String> {
    let ev = run(
        s,
        Command::StandTo(St::Order {
            giver: id(s, giver),
            to: vec![id(s, to)],
            order: text.into(),
            via,
        }),
        &[],
    )
    .map_err(|e| e.to_string())?;
    Ok(ev
        .iter()
        .find_map(|e| match e {
            Event::StandTo(StandToEvent::OrderGiven { order, .. }) => Some(order.clone()),
            _ => None,
        })
        .expect("an order event"))
}

/// The kind of the refusal of an order.
fn order_refusal(s: &GameState, giver: &str, to: &str, text: &str, via: OrderVia) -> RefusalKind {
    refusal_kind(run(
        s,
        Command::StandTo(St::Order {
            giver: id(s, giver),
            to: vec![id(s, to)],
            order: text.into(),
            via,
        }),
        &[],
    ))
}

#[test]
fn shouted_orders_are_free_text() {
    let s = order_state();
    // The text's example orders are sentences.
    let mut near = s.clone();
    near.figures[1].placement.center_in_table = Point2::new(15.0, 10.0);
    assert_eq!(
        order(&near, "Sgt", "Pte", "form a skirmish line", OrderVia::Shout).as_deref(),
        Ok("form a skirmish line")
    );
    assert_eq!(
        order_refusal(&near, "Sgt", "Pte", "  ", OrderVia::Shout),
        RefusalKind::Malformed
    );
}

#[test]
fn hand_signals_are_a_closed_set() {
    let s = order_state();
    // Spelled as the player likes; logged by the signal's name.
    assert_eq!(
        order(
            &s,
            "Sgt",
            "Pte",
            "Extend skirmish line",
            OrderVia::HandSignal
        )
        .as_deref(),
        Ok("extend-skirmish-line")
    );
    let err = order(
        &s,
        "Sgt",
        "Pte",
        "go round the back of the kraal",
        OrderVia::HandSignal,
    )
    .unwrap_err();
    assert!(err.contains("not a hand signal"), "{err}");
    assert!(
        err.contains("advance"),
        "the refusal lists the signals: {err}"
    );
    // Officers may also pass the scouts' signals on.
    assert!(
        order(
            &s,
            "Sgt",
            "Pte",
            "enemy in sight small numbers",
            OrderVia::HandSignal
        )
        .is_ok()
    );
}

#[test]
fn scouts_give_only_the_three_simple_signals() {
    let r = rules();
    assert_eq!(
        r.data.orders.scout_signals,
        [
            "no-enemy-in-sight",
            "enemy-in-sight-small-numbers",
            "enemy-in-sight-large-numbers"
        ]
    );
    let mut s = order_state();
    s.active_side = s.figure_named("Scout").unwrap().side;
    assert_eq!(
        order(
            &s,
            "Scout",
            "Sgt",
            "enemy in sight large numbers",
            OrderVia::HandSignal
        )
        .as_deref(),
        Ok("enemy-in-sight-large-numbers")
    );
    let err = order(&s, "Scout", "Sgt", "advance", OrderVia::HandSignal).unwrap_err();
    assert!(err.contains("a scout can give"), "{err}");
    // A scout cannot shout a command.
    assert_eq!(
        order_refusal(&s, "Scout", "Sgt", "come here", OrderVia::Shout),
        RefusalKind::NoOrder
    );
}

#[test]
fn musician_calls_are_a_closed_set_and_natives_sound_only_the_marked_ones() {
    let s = order_state();
    let bugler = OrderVia::Musician {
        musician: id(&s, "Bugler"),
    };
    assert_eq!(
        order(&s, "Sgt", "Pte", "cease firing", bugler.clone()).as_deref(),
        Ok("cease-firing")
    );
    let err = order(&s, "Sgt", "Pte", "make tea", bugler).unwrap_err();
    assert!(err.contains("not a call"), "{err}");
    let mut n = order_state();
    n.active_side = n.figure_named("Induna").unwrap().side;
    let horn = OrderVia::Musician {
        musician: id(&n, "Horn"),
    };
    // Every native call is also a British one, not the other way round.
    let r = rules();
    let native: Vec<&str> = r
        .data
        .orders
        .call
        .iter()
        .filter(|c| c.native)
        .map(|c| c.name.as_str())
        .collect();
    assert!(!native.is_empty() && native.len() < r.data.orders.call.len());
    assert!(order(&n, "Induna", "Induna", native[0], horn.clone()).is_ok());
    let british_only = r
        .data
        .orders
        .call
        .iter()
        .find(|c| !c.native)
        .unwrap()
        .name
        .clone();
    let err = order(&n, "Induna", "Induna", &british_only, horn).unwrap_err();
    assert!(err.contains("a native musician"), "{err}");
}

// ---- The fanatic ----

/// A fanatic (native, 6) at 10,10; British at 20,10 (closest) and 10,40.
fn fanatic_state(exp: u8, wall: bool) -> GameState {
    let terrain = if wall {
        "[[terrain]]\nname = \"kraal wall\"\nkinds = [\"blocking\"]\npolygon_in = [[13.0, 0.0], [14.0, 0.0], [14.0, 30.0], [13.0, 30.0]]\n"
    } else {
        ""
    };
    let mut s = state_from(&format!(
        "{terrain}{}{}{}{}",
        fig("Zealot", "Natives", "thrown-spear", exp, 10.0, 10.0, ""),
        fig(
            "Induna",
            "Natives",
            "thrown-spear",
            3,
            10.0,
            5.0,
            "rank = \"chief\""
        ),
        fig("Near", "British", "breech-loading-rifle", 3, 20.0, 10.0, ""),
        fig("Far", "British", "breech-loading-rifle", 3, 10.0, 40.0, ""),
    ));
    at_phase(&mut s, "move", "Zealot");
    s
}

fn move_cmd(s: &GameState, to: (f64, f64), pace: Pace) -> Command {
    Command::StandTo(St::Move {
        figure: id(s, "Zealot"),
        path_in: vec![Point2::new(to.0, to.1)],
        facing_deg: 0.0,
        pace,
        mount_level: None,
    })
}

#[test]
fn a_fanatic_always_charges_the_closest_enemy_he_sees() {
    let r = rules();
    let s = fanatic_state(6, false);
    assert_eq!(
        r.forced_charge_target(&s, &s.figures[0]),
        Some(id(&s, "Near"))
    );
    let err = r
        .check(&s, &move_cmd(&s, (12.0, 10.0), Pace::Walk))
        .unwrap_err();
    assert!(err.to_string().contains("must charge Near"), "{err}");
    // Charging the other way, or toward the farther enemy, is refused.
    assert!(
        refusal_kind(r.check(&s, &move_cmd(&s, (10.0, 16.0), Pace::Charge)))
            == RefusalKind::NoOrder
    );
    assert!(
        r.check(&s, &move_cmd(&s, (16.0, 10.0), Pace::Charge))
            .is_ok()
    );
    // A trained warrior may walk; a fanatic who sees nobody may too.
    let t = fanatic_state(3, false);
    assert!(r.check(&t, &move_cmd(&t, (12.0, 10.0), Pace::Walk)).is_ok());
    let hidden = fanatic_state(6, true);
    assert_eq!(
        r.forced_charge_target(&hidden, &hidden.figures[0]),
        Some(id(&hidden, "Far")),
        "the wall hides Near: Far is the closest he sees"
    );
}

#[test]
fn once_charging_a_fanatic_reacts_to_nothing_else() {
    let s = fanatic_state(6, false);
    let zealot = id(&s, "Zealot");
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    let ev = g
        .execute(
            move_cmd(g.state(), (16.0, 10.0), Pace::Charge),
            &mut TypedDice::default(),
        )
        .unwrap();
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::StandTo(StandToEvent::FanaticCharging { figure, target }) if *figure == zealot && target == "Near"
    )));
    // Next turn of the Natives: the chief's shout does not reach him.
    while !(g.state().active_side == g.state().figure(zealot).unwrap().side
        && g.state().phase == 0
        && g.state().turn == 2)
    {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    let ev = g
        .execute(
            Command::StandTo(St::Order {
                giver: id(g.state(), "Induna"),
                to: vec![zealot],
                order: "halt".into(),
                via: OrderVia::Shout,
            }),
            &mut TypedDice::default(),
        )
        .unwrap();
    assert!(ev.iter().any(
        |e| matches!(e, Event::StandTo(StandToEvent::OrderGiven { to, .. }) if to.is_empty())
    ));
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Note { text } if text.contains("reacts to no order")))
    );
    // Nor does he go to ground.
    let prone = Command::StandTo(St::Prone {
        figure: zealot,
        prone: true,
    });
    assert_eq!(game_refusal_kind(g.check(&prone)), RefusalKind::NoOrder);
}

// ---- The referee ----

#[test]
fn the_british_go_first_unless_the_referee_rules_otherwise() {
    let body = fig("A", "British", "breech-loading-rifle", 3, 1.0, 1.0, "");
    let s = state_from(&body);
    assert_eq!(s.sides[0].name, "British");
    let s = state_with_header("[referee]\nfirst_side = \"Natives\"\n", &body);
    assert_eq!(s.sides[0].name, "Natives");
    assert_eq!(
        s.figure_named("A").unwrap().side,
        1,
        "figures follow their side"
    );
    let text = "name = \"t\"\nrule_set = \"stand-to\"\n[referee]\nfirst_side = \"Boers\"\n[table]\nwidth_in = 10.0\ndepth_in = 10.0\n[[side]]\nname = \"British\"\nkind = \"european\"\n";
    let err = Scenario::from_source(&SourceFile::from_text("t.toml", text), &registry())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.toml:4") && err.contains("no side named `Boers`"),
        "{err}"
    );
}

fn roll_experience(s: &GameState, who: &str, face: u32) -> (u8, Vec<(String, f64)>) {
    let ev = run(
        s,
        Command::StandTo(St::RollExperience { figure: who.into() }),
        &[face],
    )
    .unwrap();
    let number = ev
        .iter()
        .find_map(|e| match e {
            Event::StandTo(StandToEvent::Experience { number, .. }) => Some(*number),
            _ => None,
        })
        .unwrap();
    let odds = ev
        .iter()
        .find_map(|e| match e {
            Event::Odds { odds, .. } => Some(odds.iter().map(|o| (o.name.clone(), o.p)).collect()),
            _ => None,
        })
        .unwrap();
    (number, odds)
}

#[test]
fn green_units_roll_experience_one_lower() {
    let body = format!(
        "{}{}",
        fig(
            "Recruit",
            "British",
            "breech-loading-rifle",
            3,
            1.0,
            1.0,
            ""
        ),
        fig("Warrior", "Natives", "thrown-spear", 3, 5.0, 1.0, "")
    );
    let s = state_with_header("[referee]\ngreen_sides = [\"British\"]\n", &body);
    assert_eq!(roll_experience(&s, "Recruit", 6).0, 5);
    assert_eq!(roll_experience(&s, "Recruit", 2).0, 1);
    assert_eq!(roll_experience(&s, "Recruit", 1).0, 1, "never below 1");
    assert_eq!(roll_experience(&s, "Warrior", 6).0, 6);
    let (_, odds) = roll_experience(&s, "Recruit", 3);
    let p = |n: &str| odds.iter().find(|o| o.0 == n).unwrap().1;
    approx::assert_relative_eq!(p("p_novice"), 2.0 / 6.0);
    approx::assert_relative_eq!(p("p_hero"), 0.0);
    let (_, odds) = roll_experience(&s, "Warrior", 3);
    let p = |n: &str| odds.iter().find(|o| o.0 == n).unwrap().1;
    approx::assert_relative_eq!(p("p_fanatic"), 1.0 / 6.0);
    approx::assert_relative_eq!(p("p_trained"), 3.0 / 6.0);
}
