"""A notebook's first cells, as a script: replay the demo league through Glicko-2, look at
the leaderboard, and plot the top five players' rating histories with matplotlib.

    python python/examples/plot_history.py [OUT.png]

CI runs it and keeps the figure.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import polars as pl

import rate_batch

league = Path(__file__).resolve().parents[2] / "datasets" / "chess-league.csv"
out = Path(sys.argv[1] if len(sys.argv) > 1 else "league-history.png")

# In [1]: the replay, every contest predicted before it is rated.
result = rate_batch.replay(str(league), system="glicko2", period="week")
print(result.leaderboard.select("rank", "player", "rating", "uncertainty").head(5))
two = result.metrics["metrics"]["two_player"]
print(f"log-loss {two['log_loss']:.4f}, accuracy {two['accuracy']:.1f} %")

# In [2]: each of the top five's rating after every game.
top = result.leaderboard["player"].head(5).to_list()
curves = (
    result.history.filter(pl.col("player").is_in(top))
    .select("time", "player", "rating_after")
    .sort("time")
)
fig, ax = plt.subplots(figsize=(9, 5))
for name in top:
    mine = curves.filter(pl.col("player") == name)
    ax.plot(mine["time"].to_list(), mine["rating_after"].to_list(), label=name)
ax.set_xlabel("time")
ax.set_ylabel("Glicko-2 rating")
ax.set_title(f"The top five of {league.name}")
ax.legend()
fig.autofmt_xdate()
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"Wrote {out}")
