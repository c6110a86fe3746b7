// The footer's copyright year (components/footer.py), computed in the visitor's browser so
// a build from last year still says this one.

new Date().getFullYear()
