"""Helpers of a host-imported library; the second one uses a package the kernel's module does not import."""
import nki.isa as nisa
import nki.language as nl

from otherlib import SHIFT


def scaled(dst, src, factor):
    nisa.tensor_scalar(dst=dst, data=src, op0=nl.multiply, operand0=factor)


def shifted(dst, src):
    nisa.tensor_scalar(dst=dst, data=src, op0=nl.add, operand0=SHIFT)
