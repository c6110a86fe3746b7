"""Consultation bookings after the request: one active booking per slot, the agency's
confirm/decline links, the visitor's manage link (move or cancel) and calendar file.

``models`` (the ``bookings`` and ``booking_link_uses`` tables) → ``slots`` (claiming and
freeing slots, the state of a booking) → ``availability`` (the free slots offered) and
``reschedule`` (moving a booking) → ``links`` (signed, expiring,
single-use links; their secret: ``link_secret``) → ``calendar_file`` (the ``.ics`` and
add-to-calendar links, at the video call of ``meeting``) → ``link_page`` (what the pages
the links open share) → ``manage_page`` (the visitor's manage page) → ``pages`` (the small
pages the links open, routed, and the free-slots answer the form asks for).
"""
