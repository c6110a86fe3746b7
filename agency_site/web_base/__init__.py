"""What every page and endpoint the backend serves itself shares, below the features that
serve them (bookings, the desk, the forms' endpoints, the report): the plain page's shell
(``plain_page.py``), a request body read within a length and a time (``request_body.py``),
and the security headers with each page's Content-Security-Policy (``security_headers.py``).
"""
