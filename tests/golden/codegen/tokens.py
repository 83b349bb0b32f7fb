def f___torch___tokens(args):
    text_0, vocab_1, = args
    try:
        ids_2 = []
        v_7 = (text_0.split() if text_0.isascii() and '\x1f' not in text_0 else _k0(text_0, None, (-1)))
        v_8 = len(v_7)
        for v_10 in range(v_8):
            try:
                word_11 = v_7[v_10]
            except IndexError:
                word_11 = _k1(v_7, v_10)
            v_13 = (word_11.strip('.,;:!?') if word_11.isascii() else _k2(word_11, '.,;:!?'))
            w_14 = (v_13.lower() if v_13.isascii() else _k3(v_13))
            if (w_14 in vocab_1):
                try:
                    v_16 = vocab_1[w_14]
                except KeyError:
                    v_16 = _k4(vocab_1, w_14)
                ids_2.append(v_16)
            else:
                ids_2.append(0)
        counts_20 = {}
        v_21 = len(ids_2)
        for v_23 in range(v_21):
            try:
                t_24 = ids_2[v_23]
            except IndexError:
                t_24 = _k1(ids_2, v_23)
            if (t_24 in counts_20):
                try:
                    v_26 = counts_20[t_24]
                except KeyError:
                    v_26 = _k4(counts_20, t_24)
                counts_20[t_24] = (v_28 if -9223372036854775808 <= (v_28 := v_26 + 1) <= 9223372036854775807 else _wrap5(v_28))
            else:
                counts_20[t_24] = 1
        return (ids_2, counts_20)
    except _CAUGHT6 as e:
        raise _locate(e, e.__traceback__.tb_lineno) from None
