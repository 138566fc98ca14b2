"""Screens of the workbench: modals pushed over the main view, such as approvals."""
