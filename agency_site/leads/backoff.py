"""The jitter of every retry schedule (the e-mails' ``RetryPolicy``, the webhooks'
``WebhookPolicy``): many rows failed at once are not all tried again at the same moment,
so a provider just back up is not hit by all of them in the same second."""

import datetime as dt
import random


def jittered(
    wait: dt.timedelta, spread: float, floor: dt.timedelta = dt.timedelta(0)
) -> dt.timedelta:
    """``wait`` scaled by a random factor in 1 ± ``spread``, never below ``floor``."""
    return max(wait * random.uniform(1 - spread, 1 + spread), floor)
