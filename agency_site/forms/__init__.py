"""The lead forms, each declared once (``declarations.py``) from the field types of
``fields.py``: the kind of lead (``kinds.py``), the state, the component, the no-JavaScript
page, the server's validation, the CLI export, the EmailJS parameters and template id
(``template_ids.py``), the desk's and the report's names and the load test's fields all
follow from it.

A new field: one ``FormField`` in its form's declaration, its words under the form's
``fields`` in ``forms.yaml``, the privacy text if it is a new kind of data, and the EmailJS
template if it goes into the e-mail (``python -m agency_site.forms`` lists each template's
variables). A new form: its declaration and its line in ``FORMS``, its words in both
``forms.yaml``, the page that places it, the privacy pages. See docs/forms.md.
"""
