"""Consultation bookings after the request: one active booking per slot, the agency's
confirm/decline links, the visitor's manage link (move or cancel) and calendar file.

``models`` (the ``bookings`` and ``booking_link_uses`` tables) → ``slots`` (claiming and
freeing slots, the state of a booking) → ``availability`` (the free slots offered) and
``reschedule`` (moving a booking) → ``links`` (signed, expiring,
single-use links; their secret: ``link_secret``) → ``calendar_file`` (the ``.ics`` and
add-to-calendar links, at the video call of ``meeting``) → ``pages`` (the small pages the
links open, the visitor's manage page, and the free-slots answer the form asks for).
"""
