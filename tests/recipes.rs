//! The README's recipes, run as printed. Every command of its "Recipes" section is run by the
//! built binary in a fresh folder that holds a small input in that source's own published
//! format (the real header, invented rows), named as the command names it; then the outputs
//! are checked against what the small input makes certain.

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{read_csv, texts};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

/// The commands of the README's "## Recipes" section: the code lines (indented or fenced) that
/// begin with `rate-batch `, a trailing `\` joining the next line.
fn recipe_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut lines = readme
        .lines()
        .skip_while(|l| l.trim_end() != "## Recipes")
        .skip(1)
        .take_while(|l| !l.starts_with("## "));
    let mut commands = Vec::new();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if !t.starts_with("rate-batch ") {
            continue;
        }
        let mut command = t.to_string();
        while command.ends_with('\\') {
            command.pop();
            let next = lines.next().expect("a continued command goes on");
            command.push(' ');
            command.push_str(next.trim());
        }
        commands.push(command);
    }
    commands
}

/// Splits a command into words as `sh` would for the simple forms a recipe uses: whitespace
/// between words, `'...'` and `"..."` quoting.
fn words(command: &str) -> Vec<String> {
    let (mut out, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (None, '\\' | '$' | '`' | '*' | '?' | ';' | '|' | '&' | '<' | '>') => {
                panic!("a recipe is a plain command; `{c}` in `{command}` would need a shell")
            }
            _ => {
                word.push(c);
                any = true;
            }
        }
    }
    assert!(quote.is_none(), "unbalanced quote in `{command}`");
    if any {
        out.push(word);
    }
    out
}

/// One recipe's input: the files it needs, and what the outputs must show.
struct Fixture {
    /// The input as the command names it (a file, or a folder).
    input: &'static str,
    /// Writes the input into the folder.
    make: fn(&Path),
    /// Distinct players (or teams) in the input.
    players: usize,
    /// Contests (games, matches) in the input that have a result.
    contests: u64,
    /// The player the input makes clearly strongest.
    top: &'static str,
    /// Further checks: the output folder and `metrics.json`.
    check: fn(&Path, &Value),
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// martj42/international_results `results.csv`: its header, invented results, one fixture not
/// played yet (`NA` scores, as the file publishes them). Spain wins all five of its games; one
/// game is drawn.
const FOOTBALL: &str = "\
date,home_team,away_team,home_score,away_score,tournament,city,country,neutral
2023-03-25,Spain,Norway,3,0,UEFA Euro qualification,Málaga,Spain,FALSE
2023-03-28,Morocco,Japan,2,1,Friendly,Tangier,Morocco,FALSE
2023-03-28,Portugal,Croatia,1,1,Friendly,Lisbon,Portugal,FALSE
2023-06-15,Croatia,Spain,0,2,UEFA Nations League,Rotterdam,Netherlands,TRUE
2023-06-17,Norway,Japan,0,1,Friendly,Oslo,Norway,FALSE
2023-06-20,Portugal,Morocco,2,0,Friendly,Porto,Portugal,FALSE
2023-09-08,Spain,Portugal,2,1,Friendly,Madrid,Spain,FALSE
2023-09-12,Croatia,Japan,2,1,Friendly,Zagreb,Croatia,FALSE
2023-10-12,Morocco,Spain,0,1,Friendly,Rabat,Morocco,FALSE
2023-10-17,Norway,Portugal,1,2,UEFA Euro qualification,Oslo,Norway,FALSE
2023-11-16,Spain,Japan,4,1,Friendly,Valencia,Spain,FALSE
2023-11-20,Croatia,Morocco,1,0,Friendly,Split,Croatia,FALSE
2024-03-22,Spain,Croatia,NA,NA,Friendly,Madrid,Spain,FALSE
";

/// Jeff Sackmann's `atp_matches_2023.csv`: its header (copied from the real file), invented
/// players and matches. Two tournaments a week apart, each listed final first as the real files
/// list them, all of a tournament's matches dated its first day (`YYYYMMDD`). Teodor Varga
/// wins both (five matches).
const TENNIS: &str = "\
tourney_id,tourney_name,surface,draw_size,tourney_level,tourney_date,match_num,winner_id,winner_seed,winner_entry,winner_name,winner_hand,winner_ht,winner_ioc,winner_age,loser_id,loser_seed,loser_entry,loser_name,loser_hand,loser_ht,loser_ioc,loser_age,score,best_of,round,minutes,w_ace,w_df,w_svpt,w_1stIn,w_1stWon,w_2ndWon,w_SvGms,w_bpSaved,w_bpFaced,l_ace,l_df,l_svpt,l_1stIn,l_1stWon,l_2ndWon,l_SvGms,l_bpSaved,l_bpFaced,winner_rank,winner_rank_points,loser_rank,loser_rank_points
2023-7101,Portoferraio,Clay,8,A,20230417,300,210001,1,,Teodor Varga,R,188,HUN,24.3,210002,2,,Emil Strand,L,185,SWE,27.8,6-3 6-4,3,F,92,6,1,61,40,31,12,10,2,3,2,3,64,41,25,10,9,4,8,11,1840,27,1215
2023-7101,Portoferraio,Clay,8,A,20230417,299,210001,1,,Teodor Varga,R,188,HUN,24.3,210006,,Q,Nils Oberhauser,R,191,AUT,22.1,6-2 6-3,3,SF,78,5,0,52,36,28,10,9,1,1,1,4,58,35,20,9,8,3,7,11,1840,142,402
2023-7101,Portoferraio,Clay,8,A,20230417,298,210002,2,,Emil Strand,L,185,SWE,27.8,210003,,,Rafael Quintas,R,180,POR,30.5,7-6(5) 6-4,3,SF,118,4,2,80,51,38,16,12,4,5,3,3,77,50,34,14,11,3,5,27,1215,61,760
2023-7101,Portoferraio,Clay,8,A,20230417,297,210001,1,,Teodor Varga,R,188,HUN,24.3,210004,,,Marco Bellandi,R,183,ITA,25.9,6-1 6-4,3,QF,70,7,1,49,35,29,8,9,0,0,2,2,55,30,18,11,8,2,6,11,1840,88,610
2023-7101,Portoferraio,Clay,8,A,20230417,296,210006,,Q,Nils Oberhauser,R,191,AUT,22.1,210007,,,Yusuf Demirel,L,178,TUR,28.4,4-6 6-3 6-4,3,QF,141,9,4,98,60,44,20,15,6,8,2,5,101,63,41,17,15,5,10,142,402,97,566
2023-7101,Portoferraio,Clay,8,A,20230417,295,210003,,,Rafael Quintas,R,180,POR,30.5,210008,,WC,Luca Ferrante,R,186,ITA,19.7,6-3 2-1 RET,3,QF,55,2,0,33,22,17,6,5,0,1,1,3,37,20,11,7,4,1,3,61,760,388,121
2023-7101,Portoferraio,Clay,8,A,20230417,294,210002,2,,Emil Strand,L,185,SWE,27.8,210005,,,Hugo Lemaire,R,193,FRA,26.2,6-4 7-5,3,QF,104,8,3,72,45,34,15,11,3,4,10,4,79,47,33,14,11,4,7,27,1215,74,688
2023-7102,Kessel Open,Hard,4,A,20230424,300,210001,1,,Teodor Varga,R,188,HUN,24.3,210009,,,Arvid Kallas,R,190,EST,29.0,6-4 6-2,3,F,81,10,2,58,39,31,10,9,1,2,5,3,60,38,24,9,8,3,7,10,2040,45,905
2023-7102,Kessel Open,Hard,4,A,20230424,299,210001,1,,Teodor Varga,R,188,HUN,24.3,210005,,,Hugo Lemaire,R,193,FRA,26.2,7-5 6-3,3,SF,95,12,1,66,44,35,12,10,2,3,9,2,70,45,30,11,9,3,6,10,2040,74,688
2023-7102,Kessel Open,Hard,4,A,20230424,298,210009,,,Arvid Kallas,R,190,EST,29.0,210002,2,,Emil Strand,L,185,SWE,27.8,3-6 7-6(4) 7-6(2),3,SF,162,14,5,110,68,52,22,17,5,7,6,6,112,70,50,21,17,4,7,45,905,25,1260
";

/// jalapic/engsoccerdata's `data-raw/italy.csv`: its header and quoting (copied from the real
/// file), invented matches of four clubs over a season, each pair twice; Atalanta wins all six
/// of its matches.
const ITALY: &str = r#""Date","Season","home","visitor","FT","hgoal","vgoal","tier","division","totgoal","goaldif","result"
"2024-08-18",2024,"Atalanta","Cagliari Calcio","2-0",2,0,1,"1",2,2,"H"
"2024-08-18",2024,"Torino FC","Udinese Calcio","1-1",1,1,1,"1",2,0,"D"
"2024-09-01",2024,"Udinese Calcio","Atalanta","0-3",0,3,1,"1",3,-3,"A"
"2024-09-01",2024,"Cagliari Calcio","Torino FC","1-2",1,2,1,"1",3,-1,"A"
"2024-09-15",2024,"Atalanta","Torino FC","2-1",2,1,1,"1",3,1,"H"
"2024-09-15",2024,"Udinese Calcio","Cagliari Calcio","2-2",2,2,1,"1",4,0,"D"
"2025-01-19",2024,"Cagliari Calcio","Atalanta","1-4",1,4,1,"1",5,-3,"A"
"2025-01-19",2024,"Udinese Calcio","Torino FC","0-1",0,1,1,"1",1,-1,"A"
"2025-02-02",2024,"Atalanta","Udinese Calcio","1-0",1,0,1,"1",1,1,"H"
"2025-02-02",2024,"Torino FC","Cagliari Calcio","0-0",0,0,1,"1",0,0,"D"
"2025-02-16",2024,"Torino FC","Atalanta","0-2",0,2,1,"1",2,-2,"A"
"2025-02-16",2024,"Cagliari Calcio","Udinese Calcio","3-1",3,1,1,"1",4,2,"H"
"#;

/// A PGN file with the seven standard tags and move text: five games of a weekend open, every
/// result form. Mira Havel wins all three of hers, with White and with Black.
const PGN: &str = r#"[Event "Riverside Spring Open"]
[Site "Riverside"]
[Date "2024.03.02"]
[Round "1"]
[White "Havel, Mira"]
[Black "Okafor, Tunde"]
[Result "1-0"]
[WhiteElo "2210"]
[BlackElo "2085"]
[ECO "C50"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ 7. Bd2 Bxd2+
8. Nbxd2 d5 9. exd5 Nxd5 10. Qb3 Na5 11. Qa4+ c6 12. Bxd5 Qxd5 13. O-O Be6 14. Rfe1 1-0

[Event "Riverside Spring Open"]
[Site "Riverside"]
[Date "2024.03.02"]
[Round "1"]
[White "Lindqvist, Sven"]
[Black "Ruiz, Paloma"]
[Result "1/2-1/2"]
[WhiteElo "2040"]
[BlackElo "2051"]
[ECO "D37"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Nf3 Be7 5. Bf4 O-O 6. e3 c5 7. dxc5 Bxc5 1/2-1/2

[Event "Riverside Spring Open"]
[Site "Riverside"]
[Date "2024.03.03"]
[Round "2"]
[White "Ruiz, Paloma"]
[Black "Havel, Mira"]
[Result "0-1"]
[WhiteElo "2051"]
[BlackElo "2210"]
[ECO "B90"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7
9. Qd2 O-O 10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. f4 a5 0-1

[Event "Riverside Spring Open"]
[Site "Riverside"]
[Date "2024.03.03"]
[Round "2"]
[White "Okafor, Tunde"]
[Black "Lindqvist, Sven"]
[Result "1-0"]
[WhiteElo "2085"]
[BlackElo "2040"]
[ECO "A45"]

1. d4 Nf6 2. Bg5 e6 3. e4 h6 4. Bxf6 Qxf6 5. Nc3 d6 6. Qd2 g5 7. O-O-O Nc6 1-0

[Event "Riverside Spring Open"]
[Site "Riverside"]
[Date "2024.03.04"]
[Round "3"]
[White "Havel, Mira"]
[Black "Lindqvist, Sven"]
[Result "1-0"]
[WhiteElo "2210"]
[BlackElo "2040"]
[ECO "C65"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. d3 Bc5 5. c3 O-O 6. O-O d6 7. h3 a6 8. Ba4 Ba7 1-0
"#;

/// A FIDE-rated round robin as a tournament's PGN publishes it (`Event`, `EventDate`, the
/// players' ratings before it in `WhiteElo`/`BlackElo`, no moves): four players, six games;
/// Wen Jiahui wins all three of hers.
const ROUND_ROBIN: &str = r#"[Event "Harbour Masters 2024"]
[Site "Harbour NED"]
[Date "2024.01.13"]
[Round "1"]
[White "Wen, Jiahui"]
[Black "Moreau, Claire"]
[Result "1-0"]
[WhiteElo "2655"]
[BlackElo "2610"]
[EventDate "2024.01.13"]

[Event "Harbour Masters 2024"]
[Site "Harbour NED"]
[Date "2024.01.13"]
[Round "1"]
[White "Baptiste, Emil"]
[Black "Ostrowski, Jan"]
[Result "1/2-1/2"]
[WhiteElo "2590"]
[BlackElo "2602"]
[EventDate "2024.01.13"]

[Event "Harbour Masters 2024"]
[Site "Harbour NED"]
[Date "2024.01.14"]
[Round "2"]
[White "Ostrowski, Jan"]
[Black "Wen, Jiahui"]
[Result "0-1"]
[WhiteElo "2602"]
[BlackElo "2655"]
[EventDate "2024.01.13"]

[Event "Harbour Masters 2024"]
[Site "Harbour NED"]
[Date "2024.01.14"]
[Round "2"]
[White "Moreau, Claire"]
[Black "Baptiste, Emil"]
[Result "1-0"]
[WhiteElo "2610"]
[BlackElo "2590"]
[EventDate "2024.01.13"]

[Event "Harbour Masters 2024"]
[Site "Harbour NED"]
[Date "2024.01.15"]
[Round "3"]
[White "Wen, Jiahui"]
[Black "Baptiste, Emil"]
[Result "1-0"]
[WhiteElo "2655"]
[BlackElo "2590"]
[EventDate "2024.01.13"]

[Event "Harbour Masters 2024"]
[Site "Harbour NED"]
[Date "2024.01.15"]
[Round "3"]
[White "Ostrowski, Jan"]
[Black "Moreau, Claire"]
[Result "1/2-1/2"]
[WhiteElo "2602"]
[BlackElo "2610"]
[EventDate "2024.01.13"]
"#;

/// A month of the Lichess database as it publishes it (`.pgn.zst`; Lichess's tags, a clock
/// comment in the moves, `TimeControl` in seconds), invented: eight games of blitz and bullet,
/// listed as they ended. `magnus_fan` wins his four blitz games.
const LICHESS: &str = r#"[Event "Rated Blitz game"]
[Site "https://lichess.org/aaaa0001"]
[White "magnus_fan"]
[Black "kasparov91"]
[Result "1-0"]
[UTCDate "2013.01.01"]
[UTCTime "10:00:04"]
[WhiteElo "1650"]
[BlackElo "1580"]
[WhiteRatingDiff "+9"]
[BlackRatingDiff "-9"]
[ECO "C20"]
[Opening "King's Pawn Game"]
[TimeControl "300+0"]
[Termination "Normal"]

1. e4 { [%clk 0:05:00] } e5 { [%clk 0:05:00] } 2. Qh5 { [%clk 0:04:58] } Nc6 { [%clk 0:04:57] } 3. Bc4 { [%clk 0:04:55] } Nf6 { [%clk 0:04:54] } 4. Qxf7# { [%clk 0:04:53] } 1-0

[Event "Rated Bullet game"]
[Site "https://lichess.org/aaaa0002"]
[White "kasparov91"]
[Black "tal_returns"]
[Result "0-1"]
[UTCDate "2013.01.01"]
[UTCTime "10:01:10"]
[WhiteElo "1500"]
[BlackElo "1500"]
[TimeControl "60+0"]
[Termination "Time forfeit"]

1. d4 d5 0-1

[Event "Rated Blitz game"]
[Site "https://lichess.org/aaaa0003"]
[White "tal_returns"]
[Black "magnus_fan"]
[Result "0-1"]
[UTCDate "2013.01.01"]
[UTCTime "10:02:30"]
[WhiteElo "1500"]
[BlackElo "1659"]
[TimeControl "180+2"]
[Termination "Normal"]

1. e4 c5 0-1

[Event "Rated Bullet game"]
[Site "https://lichess.org/aaaa0004"]
[White "tal_returns"]
[Black "kasparov91"]
[Result "1/2-1/2"]
[UTCDate "2013.01.01"]
[UTCTime "10:09:00"]
[WhiteElo "1512"]
[BlackElo "1488"]
[TimeControl "60+1"]
[Termination "Normal"]

1. c4 e5 1/2-1/2

[Event "Rated Blitz game"]
[Site "https://lichess.org/aaaa0005"]
[White "magnus_fan"]
[Black "tal_returns"]
[Result "1-0"]
[UTCDate "2013.01.01"]
[UTCTime "10:08:12"]
[WhiteElo "1668"]
[BlackElo "1491"]
[TimeControl "300+0"]
[Termination "Normal"]

1. e4 e6 1-0

[Event "Rated Blitz game"]
[Site "https://lichess.org/aaaa0006"]
[White "kasparov91"]
[Black "magnus_fan"]
[Result "0-1"]
[UTCDate "2013.01.01"]
[UTCTime "10:20:00"]
[WhiteElo "1571"]
[BlackElo "1676"]
[TimeControl "300+3"]
[Termination "Normal"]

1. d4 Nf6 0-1

[Event "Rated Bullet game"]
[Site "https://lichess.org/aaaa0007"]
[White "kasparov91"]
[Black "magnus_fan"]
[Result "1-0"]
[UTCDate "2013.01.01"]
[UTCTime "10:31:00"]
[WhiteElo "1500"]
[BlackElo "1500"]
[TimeControl "30+0"]
[Termination "Normal"]

1. e4 e5 1-0

[Event "Rated Blitz game"]
[Site "https://lichess.org/aaaa0008"]
[White "magnus_fan"]
[Black "kasparov91"]
[Result "1-0"]
[UTCDate "2013.01.01"]
[UTCTime "10:40:00"]
[WhiteElo "1684"]
[BlackElo "1563"]
[TimeControl "300+0"]
[Termination "Normal"]

1. e4 e5 1-0
"#;

/// Elo-MMR's contest JSON as the Codeforces data set has it (`name`, `url`, `time_seconds`,
/// `standings` of `[handle, lo, hi]`): three rounds, a shared fourth place in the first;
/// k_tanaka wins all three.
const CONTESTS: [(&str, &str); 3] = [
    (
        "0.json",
        r#"{"name":"Codeforces Round 901 (Div. 2)","url":"https://codeforces.com/contest/1875/standings","time_seconds":1695567900,"standings":[["k_tanaka",0,0],["marta.v",1,1],["oleksiy_p",2,2],["ngoc_anh",3,4],["quentin42",3,4],["b_ferreira",5,5]]}"#,
    ),
    (
        "1.json",
        r#"{"name":"Codeforces Round 902 (Div. 2)","url":"https://codeforces.com/contest/1877/standings","time_seconds":1696084500,"standings":[["k_tanaka",0,0],["oleksiy_p",1,1],["ngoc_anh",2,2],["marta.v",3,3],["b_ferreira",4,4],["sv_ivanov",5,5]]}"#,
    ),
    (
        "2.json",
        r#"{"name":"Educational Codeforces Round 156","url":"https://codeforces.com/contest/1886/standings","time_seconds":1696862100,"standings":[["k_tanaka",0,0],["ngoc_anh",1,1],["marta.v",2,2],["sv_ivanov",3,3],["quentin42",4,4],["oleksiy_p",5,5],["b_ferreira",6,6]]}"#,
    ),
];

/// An esports season game by game in the games format with a `series` id (the columns of
/// `../shared/datasets/lol-worlds-2021.csv`): six best-of-3 series over three weeks.
/// Northwind Gaming wins its three series, 6 games to 1.
const SEASON: &str = "\
time,a,b,winner,series,game
2024-06-01T15:00:00Z,Northwind Gaming,Copper Foxes,Northwind Gaming,W1-1,1
2024-06-01T15:45:00Z,Copper Foxes,Northwind Gaming,Northwind Gaming,W1-1,2
2024-06-01T18:00:00Z,Lumen Esports,Team Halcyon,Team Halcyon,W1-2,1
2024-06-01T18:50:00Z,Team Halcyon,Lumen Esports,Lumen Esports,W1-2,2
2024-06-01T19:40:00Z,Lumen Esports,Team Halcyon,Lumen Esports,W1-2,3
2024-06-08T15:00:00Z,Northwind Gaming,Lumen Esports,Lumen Esports,W2-1,1
2024-06-08T15:50:00Z,Lumen Esports,Northwind Gaming,Northwind Gaming,W2-1,2
2024-06-08T16:40:00Z,Northwind Gaming,Lumen Esports,Northwind Gaming,W2-1,3
2024-06-08T18:00:00Z,Copper Foxes,Team Halcyon,Copper Foxes,W2-2,1
2024-06-08T18:45:00Z,Team Halcyon,Copper Foxes,Team Halcyon,W2-2,2
2024-06-08T19:30:00Z,Copper Foxes,Team Halcyon,Copper Foxes,W2-2,3
2024-06-15T15:00:00Z,Team Halcyon,Northwind Gaming,Northwind Gaming,W3-1,1
2024-06-15T15:40:00Z,Northwind Gaming,Team Halcyon,Northwind Gaming,W3-1,2
2024-06-15T18:00:00Z,Lumen Esports,Copper Foxes,Copper Foxes,W3-2,1
2024-06-15T18:50:00Z,Copper Foxes,Lumen Esports,Copper Foxes,W3-2,2
";

/// The leaderboard's row of a player: `rank,player,rating,uncertainty,display_rating,rounds,
/// wins,draws,losses,last_time`.
fn row<'a>(board: &'a [Vec<String>], player: &str) -> &'a [String] {
    board
        .iter()
        .find(|r| r[1] == player)
        .unwrap_or_else(|| panic!("{player} is on the leaderboard"))
}

/// Sum of a leaderboard column over all players.
fn total(board: &[Vec<String>], column: usize) -> u64 {
    board[1..]
        .iter()
        .map(|r| r[column].parse::<u64>().unwrap())
        .sum()
}

/// dustalov/evalica's `llmfao.csv` (LLMFAO): its header, invented judgements. No time column
/// (the input's order), the sides in `left` and `right`, `winner` naming a side (`left`,
/// `right`, `tie`). Orca wins its four.
const LLMFAO: &str = "\
id,prompt,model_x,model_y,worker,winner,left,right
0,3,11,12,41,left,Orca 13B,Vicuna 7B
1,3,12,13,41,tie,Vicuna 7B,Koala 13B
2,5,13,11,58,right,Koala 13B,Orca 13B
3,5,14,12,58,left,Falcon 7B,Vicuna 7B
4,8,11,14,83,left,Orca 13B,Falcon 7B
5,8,13,14,83,right,Koala 13B,Falcon 7B
6,9,12,11,83,right,Vicuna 7B,Orca 13B
7,9,14,13,12,tie,Falcon 7B,Koala 13B
";

/// The Chatbot Arena's Kaggle file (`train.csv` of the LMSYS competition, as
/// kolenaIO/autoarena's `train_subset.csv` has it): its header and quoting, prompts and
/// responses over several lines, one-hot outcome columns. `gpt-4-0613` wins its three.
const ARENA_KAGGLE: &str = r#"id,model_a,model_b,prompt,response_a,response_b,winner_model_a,winner_model_b,winner_tie
30192,gpt-4-0613,llama-2-13b-chat,"[""Write a haiku,
about rain""]","[""Soft rain on the roof""]","[""Rain, rain,
go away""]",1,0,0
53567,claude-2.1,gpt-4-0613,"[""What is 2+2?""]","[""5""]","[""4""]",0,1,0
65089,llama-2-13b-chat,claude-2.1,"[""Name a colour""]","[""Blue""]","[""Red""]",0,0,1
96401,gpt-4-0613,mistral-7b-instruct,"[""Say hello""]","[""Hello!""]","[""Hi, ""there""""]",1,0,0
198779,mistral-7b-instruct,llama-2-13b-chat,"[""Count to 3""]","[""1 2 3""]","[""1, 2""]",1,0,0
"#;

/// lmarena's published battles (`clean_battle_*.json`): a JSON array of objects with
/// `model_a`, `model_b`, `winner` (`model_a`, `model_b`, `tie`, `tie (bothbad)`), `tstamp`
/// (Unix seconds with a fraction) and metadata that is not read; invented battles.
/// fivethirtyeight/nfl-elo-game's `data/nfl_games.csv`: its header (copied from the real
/// file), invented games of four teams over two seasons and one not yet played; KC wins all
/// of its games. `data/initial_elos.csv` beside it, as published (`team,elo`).
const NFL: &str =
    "date,season,neutral,playoff,team1,team2,elo1,elo2,elo_prob1,score1,score2,result1
2019-09-08,2019,0,0,KC,DEN,1600.0,1480.0,0.74,31,10,1
2019-09-08,2019,0,0,BUF,MIA,1500.0,1450.0,0.66,17,20,0
2019-09-15,2019,0,0,MIA,KC,1460.0,1610.0,0.23,14,28,0
2019-09-15,2019,0,0,DEN,BUF,1470.0,1490.0,0.56,21,21,0.5
2020-09-13,2020,0,0,KC,BUF,1590.0,1490.0,0.71,24,3,1
2020-09-13,2020,1,0,DEN,MIA,1470.0,1470.0,0.5,10,13,0
2020-09-20,2020,0,0,DEN,KC,1460.0,1600.0,0.4,7,35,0
2021-09-12,2021,0,0,KC,MIA,1620.0,1480.0,0.77,,,
";
const NFL_ELOS: &str = "team,elo\nKC,1600.0\nDEN,1480.0\nBUF,1500.0\nMIA,1450.0\n";

/// `chatbot-x` wins its four.
const ARENA_JSON: &str = r#"[
{"model_a": "chatbot-x", "model_b": "helper-7b", "winner": "model_a", "judge": "arena_user_1", "turn": 1, "anony": true, "language": "English", "tstamp": 1723456789.21, "conv_metadata": {"sum_user_tokens": 12}},
{"model_a": "helper-7b", "model_b": "assist-13b", "winner": "tie", "judge": "arena_user_2", "turn": 1, "anony": true, "language": "German", "tstamp": 1723456801.5, "conv_metadata": {"sum_user_tokens": 40}},
{"model_a": "assist-13b", "model_b": "chatbot-x", "winner": "model_b", "judge": "arena_user_3", "turn": 2, "anony": true, "language": "English", "tstamp": 1723457001.75, "conv_metadata": {"sum_user_tokens": 9}},
{"model_a": "helper-7b", "model_b": "assist-13b", "winner": "tie (bothbad)", "judge": "arena_user_4", "turn": 1, "anony": false, "language": "English", "tstamp": 1723457123.0, "conv_metadata": null},
{"model_a": "chatbot-x", "model_b": "assist-13b", "winner": "model_a", "judge": "arena_user_5", "turn": 1, "anony": true, "language": "Chinese", "tstamp": 1723458000.125, "conv_metadata": {"sum_user_tokens": 77}},
{"model_a": "helper-7b", "model_b": "chatbot-x", "winner": "model_b", "judge": "arena_user_6", "turn": 3, "anony": true, "language": "English", "tstamp": 1723459000.0, "conv_metadata": {"sum_user_tokens": 5}},
{"model_a": "assist-13b", "model_b": "helper-7b", "winner": "model_a", "judge": "arena_user_7", "turn": 1, "anony": true, "language": "English", "tstamp": 1723460000.0, "conv_metadata": {"sum_user_tokens": 31}}
]
"#;

fn fixtures() -> Vec<Fixture> {
    vec![
        Fixture {
            input: "results.csv",
            make: |d| write(d, "results.csv", FOOTBALL),
            players: 6,
            contests: 12,
            top: "Spain",
            check: |out, m| {
                assert_eq!(
                    m["input"]["skipped_unfinished"], 1,
                    "the NA fixture is skipped"
                );
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "Spain")[6..9], ["5", "0", "0"]);
                assert_eq!(total(&board, 7), 2, "one drawn game, two draws");
            },
        },
        Fixture {
            input: "italy.csv",
            make: |d| write(d, "italy.csv", ITALY),
            players: 4,
            contests: 12,
            top: "Atalanta",
            check: |out, m| {
                // The quoted dates and the home advantage of the recipe.
                assert_eq!(m["params"]["advantage"].as_f64(), Some(150.0));
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "Atalanta")[6..9], ["6", "0", "0"]);
                assert_eq!(total(&board, 7), 6, "three drawn matches");
                assert!(row(&board, "Atalanta")[9].starts_with("2025-02-16"));
            },
        },
        Fixture {
            input: "nfl_games.csv",
            make: |d| {
                write(d, "nfl_games.csv", NFL);
                write(d, "initial_elos.csv", NFL_ELOS);
            },
            players: 4,
            contests: 7,
            top: "KC",
            check: |out, m| {
                assert_eq!(
                    m["input"]["skipped_unfinished"], 1,
                    "the 2021 game is to come"
                );
                // Between the seasons every team moved a third of the way to 1505: KC's
                // first rating of 2020 is his last of 2019 less a third of its lead.
                let history = read_csv(&out.join("history.csv"));
                assert_eq!(history[0].last().map(String::as_str), Some("season"));
                let kc: Vec<&Vec<String>> = history[1..].iter().filter(|r| r[3] == "KC").collect();
                let (end_2019, start_2020) = (&kc[1], &kc[2]);
                assert_eq!(
                    (end_2019[8].as_str(), start_2020[8].as_str()),
                    ("2019", "2020")
                );
                let after: f64 = end_2019[5].parse().unwrap();
                let before: f64 = start_2020[4].parse().unwrap();
                assert!((before - (after - 0.3333 * (after - 1505.0))).abs() < 1e-9);
                // Seeded at 1600, not 1500.
                assert_eq!(kc[0][4], "1600");
            },
        },
        Fixture {
            input: "atp_matches_2024.csv",
            make: |d| write(d, "atp_matches_2024.csv", &TENNIS.replace("2023", "2024")),
            players: 9,
            contests: 10,
            top: "Teodor Varga",
            check: |out, m| {
                // tourney_date read as YYYYMMDD dates, not as Unix seconds of 1970.
                let reading = m["input"]["time_format"].as_str().unwrap();
                assert!(reading.contains("YYYYMMDD"), "{reading}");
                let history = read_csv(&out.join("history.csv"));
                assert_eq!(history[0][2], "time");
                assert_eq!(history[1][2], "2024-04-17T00:00:00Z");
                assert_eq!(history[history.len() - 1][2], "2024-04-24T00:00:00Z");
                let board = read_csv(&out.join("leaderboard.csv"));
                for r in &board[1..] {
                    assert!(r[9].starts_with("2024-04-"), "last_time {}", r[9]);
                }
                // Every row is a win of side a; a tournament week is one round.
                assert_eq!(m["period"], "week");
                assert_eq!(total(&board, 6), 10);
                assert_eq!(total(&board, 8), 10);
                let varga = row(&board, "Teodor Varga");
                assert_eq!((varga[5].as_str(), varga[6].as_str()), ("2", "5"));
            },
        },
        Fixture {
            input: "games.pgn",
            make: |d| write(d, "games.pgn", PGN),
            players: 4,
            contests: 5,
            top: "Havel, Mira",
            check: |out, m| {
                assert_eq!(m["input"]["format"], "pgn");
                assert_eq!(m["input"]["skipped_invalid"], 0);
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "Havel, Mira")[6..9], ["3", "0", "0"]);
                assert_eq!(total(&board, 7), 2, "one drawn game, two draws");
            },
        },
        Fixture {
            input: "tatamast22.pgn",
            make: |d| write(d, "tatamast22.pgn", ROUND_ROBIN),
            players: 4,
            contests: 6,
            top: "Wen, Jiahui",
            check: |out, m| {
                // One event, one round, rated from the tags' ratings and rounded once.
                assert_eq!(
                    (m["period"].as_str(), m["rounds"].as_u64()),
                    (Some("event"), Some(1))
                );
                assert_eq!(m["seeded_from_pgn"], 4);
                let board = read_csv(&out.join("leaderboard.csv"));
                assert!(
                    board[1..]
                        .iter()
                        .all(|r| r[2].parse::<f64>().unwrap().fract() == 0.0)
                );
                // Wen (2655) scores 3 of 3 against 2610, 2602 and 2590: FIDE's table gives
                // 0.56, 0.57 and 0.59, K 10 above 2400: +13 (12.8 rounded).
                assert_eq!(row(&board, "Wen, Jiahui")[2], "2668");
            },
        },
        Fixture {
            input: "lichess_db_standard_rated_2013-01.pgn.zst",
            make: |d| {
                let packed = zstd::encode_all(LICHESS.as_bytes(), 3).unwrap();
                std::fs::write(d.join("lichess_db_standard_rated_2013-01.pgn.zst"), packed)
                    .unwrap();
            },
            players: 6,
            contests: 8,
            top: "magnus_fan",
            check: |out, m| {
                // A rating per speed class, the games in the order listed.
                assert_eq!(m["input_order"], true);
                assert_eq!(m["growth"], "fractional");
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(board[0][2], "pool");
                let pools: Vec<(&str, &str)> = board[1..]
                    .iter()
                    .map(|r| (r[1].as_str(), r[2].as_str()))
                    .collect();
                assert!(pools.contains(&("magnus_fan", "blitz")));
                assert!(pools.contains(&("magnus_fan", "bullet")));
                // Lichess's leaderboard wants 30 games: nobody is ranked yet.
                assert!(
                    board[1..]
                        .iter()
                        .all(|r| r[0].is_empty() && r[11] == "provisional")
                );
            },
        },
        Fixture {
            input: "codeforces",
            make: |d| {
                let folder = d.join("codeforces");
                std::fs::create_dir(&folder).unwrap();
                for (name, text) in CONTESTS {
                    write(&folder, name, text);
                }
            },
            players: 7,
            contests: 3,
            top: "k_tanaka",
            check: |out, m| {
                assert_eq!(m["input"]["format"], "json");
                assert_eq!(m["input"]["placings"], 19);
                let board = read_csv(&out.join("leaderboard.csv"));
                // Standings: rounds, contests, best and median place (first in all three).
                assert_eq!(board[0][6..9], ["contests", "best_rank", "median_rank"]);
                assert_eq!(row(&board, "k_tanaka")[5..9], ["3", "3", "1", "1"]);
            },
        },
        Fixture {
            input: "season.csv",
            make: |d| write(d, "season.csv", SEASON),
            players: 4,
            contests: 15,
            top: "Northwind Gaming",
            check: |out, m| {
                // A series is one round: three rounds for six games won and one lost.
                assert_eq!(m["period"], "series");
                assert_eq!(m["rounds"], 6);
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "Northwind Gaming")[5..9], ["3", "6", "0", "1"]);
            },
        },
        Fixture {
            input: "llmfao.csv",
            make: |d| write(d, "llmfao.csv", LLMFAO),
            players: 4,
            contests: 8,
            top: "Orca 13B",
            check: |out, m| {
                // No time: the input's order, and no times shown; `--ci 200`: the metrics'
                // bootstrap intervals (and the ranked models' ratings', none ranked here).
                assert_eq!(m["input"]["untimed"], true);
                assert_eq!(m["intervals"]["replicates"], 200);
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "Orca 13B")[6..10], ["4", "0", "0", ""]);
                assert_eq!(total(&board, 7), 4, "two ties, two draws each");
            },
        },
        Fixture {
            input: "train.csv",
            make: |d| write(d, "train.csv", ARENA_KAGGLE),
            players: 4,
            contests: 5,
            top: "gpt-4-0613",
            check: |out, _| {
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "gpt-4-0613")[6..9], ["3", "0", "0"]);
                assert_eq!(row(&board, "claude-2.1")[6..9], ["0", "1", "1"]);
            },
        },
        Fixture {
            input: "clean_battle_20240814_public.json",
            make: |d| write(d, "clean_battle_20240814_public.json", ARENA_JSON),
            players: 3,
            contests: 7,
            top: "chatbot-x",
            check: |out, m| {
                let reading = m["input"]["time_format"].as_str().unwrap();
                assert!(reading.contains("Unix seconds"), "{reading}");
                let board = read_csv(&out.join("leaderboard.csv"));
                assert_eq!(row(&board, "chatbot-x")[6..9], ["4", "0", "0"]);
                assert!(row(&board, "helper-7b")[9].starts_with("2024-08-12T"));
                assert_eq!(total(&board, 7), 4, "two ties, one of them both bad");
            },
        },
    ]
}

#[test]
fn every_readme_recipe_runs_as_printed() {
    let commands = recipe_commands();
    assert_eq!(
        commands.len(),
        12,
        "the README's Recipes section has twelve commands: {commands:#?}"
    );
    let fixtures = fixtures();
    let mut used = vec![false; fixtures.len()];
    for command in &commands {
        let mut args = words(command);
        assert_eq!(args[0], "rate-batch", "{command}");
        args.remove(0);
        let matching: Vec<usize> = (0..fixtures.len())
            .filter(|&k| {
                args.iter()
                    .any(|a| a.trim_end_matches('/') == fixtures[k].input)
            })
            .collect();
        assert_eq!(
            matching.len(),
            1,
            "`{command}` names one of the recipe inputs ({})",
            fixtures
                .iter()
                .map(|f| f.input)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let k = matching[0];
        assert!(!used[k], "two recipes read {}", fixtures[k].input);
        used[k] = true;
        let f = &fixtures[k];

        let dir = TempDir::new().unwrap();
        (f.make)(dir.path());
        let out = dir.path().join("out");
        if !args.iter().any(|a| a == "--out" || a.starts_with("--out=")) {
            args.push("--out".into());
            args.push(out.to_str().unwrap().into());
        }
        if !args.iter().any(|a| a == "--quiet") {
            args.push("--quiet".into());
        }
        let o = Command::new(env!("CARGO_BIN_EXE_rate-batch"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let (stdout, stderr) = texts(&o);
        assert!(
            o.status.success(),
            "`{command}` failed ({}):\n{stdout}\n{stderr}",
            o.status
        );

        let board = read_csv(&out.join("leaderboard.csv"));
        assert_eq!(board[0][1], "player", "{command}: {board:?}");
        assert_eq!(
            board.len() - 1,
            f.players,
            "{command}: one leaderboard row per player: {board:?}"
        );
        // The strongest has the highest rating, alone (a small input may rank nobody yet:
        // the status column says who is ranked).
        let column = |name: &str| board[0].iter().position(|h| h == name).unwrap();
        let (status, rating) = (column("status"), column("rating"));
        let mut by_rating: Vec<&Vec<String>> = board[1..].iter().collect();
        by_rating.sort_by(|a, b| {
            b[rating]
                .parse::<f64>()
                .unwrap()
                .total_cmp(&a[rating].parse().unwrap())
        });
        assert_eq!(
            by_rating[0][1], f.top,
            "{command}: the strongest on top: {board:?}"
        );
        assert_ne!(
            by_rating[0][rating], by_rating[1][rating],
            "{command}: {} alone on top",
            f.top
        );
        for r in &board[1..] {
            assert_eq!(
                r[0].is_empty(),
                r[status] != "ranked",
                "{command}: ranked rows are numbered: {r:?}"
            );
        }
        let metrics: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        assert_eq!(metrics["input"]["players"], f.players, "{command}");
        assert_eq!(metrics["input"]["contests"], f.contests, "{command}");
        (f.check)(&out, &metrics);
    }
    assert!(
        used.iter().all(|&u| u),
        "every recipe input has its command"
    );
}

#[test]
fn recipe_words_split_as_sh_does() {
    assert_eq!(
        words("rate-batch replay 'a b.csv' --map \"a=x y\"  --quiet"),
        [
            "rate-batch",
            "replay",
            "a b.csv",
            "--map",
            "a=x y",
            "--quiet"
        ]
    );
    assert_eq!(
        words("rate-batch tune x.csv --grid ''"),
        ["rate-batch", "tune", "x.csv", "--grid", ""]
    );
}
