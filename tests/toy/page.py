"""The toy family's model page: a title, a text and the one renderer call."""

from safebandit_ui import model_page

model_page.render("toy", "Toy bandit", "Two Bernoulli arms: a greedy learner against one that stays on arm 0.")
