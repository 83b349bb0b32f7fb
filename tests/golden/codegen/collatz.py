def f___torch___collatz(args):
    n_0, = args
    try:
        v_4 = _k0(1, n_0, 1)
        total_37 = 0
        for v_6 in range(v_4):
            i_8 = (1 + v_6)
            v_13 = (i_8 != 1)
            x_34, steps_35 = i_8, 0
            _loop1 = v_13
            while _loop1:
                if ((x_34 % 2) == 0):
                    x_28 = (x_34 // 2)
                else:
                    x_28 = (x_27 if -9223372036854775808 <= (x_27 := (v_25 if -9223372036854775808 <= (v_25 := 3 * x_34) <= 9223372036854775807 else _wrap1(v_25)) + 1) <= 9223372036854775807 else _wrap1(x_27))
                steps_30 = (steps_30 if -9223372036854775808 <= (steps_30 := steps_35 + 1) <= 9223372036854775807 else _wrap1(steps_30))
                v_33 = (x_28 != 1)
                _loop1, x_34, steps_35 = v_33, x_28, steps_30
            total_37 = (total_36 if -9223372036854775808 <= (total_36 := total_37 + steps_35) <= 9223372036854775807 else _wrap1(total_36))
        return total_37
    except _CAUGHT2 as e:
        raise _locate(e, e.__traceback__.tb_lineno) from None
